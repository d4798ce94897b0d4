import Ripple
import RippleBlueZSimulator
import RippleLoop
import Testing

@testable import RippleBlueZ

#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(1))) struct TroubleshootTests {
    /// A fake `/sys/class/rfkill` with one Bluetooth switch and one Wi-Fi switch.
    private func fakeKillSwitches(softBlocked: Bool) -> String {
        var template = Array("/tmp/ripple-rfkill-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        #expect(made)
        let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func write(_ path: String, _ text: String) {
            guard let file = fopen(directory + "/" + path, "w") else { return }
            fputs(text, file)
            fclose(file)
        }
        for (entry, type, name) in [("rfkill0", "bluetooth", "hci0"), ("rfkill1", "wlan", "phy0")] {
            mkdir(directory + "/" + entry, 0o755)
            write(entry + "/type", type + "\n")
            write(entry + "/name", name + "\n")
            write(entry + "/soft", softBlocked ? "1\n" : "0\n")
            write(entry + "/hard", "0\n")
        }
        return directory
    }

    @Test func aHealthySimulatorPassesEveryCheck() async throws {
        let fixture = try await CentralFixture(world: Lab.world)
        let report = await fixture.central.troubleshoot(killSwitchDirectory: fakeKillSwitches(softBlocked: false))
        #expect(report.isHealthy)
        #expect(
            report.checks.map(\.name) == [
                "bluetoothd on the bus", "access to bluetoothd", "adapters", "kill switches", "adapter hci0 powered",
            ])
        #expect(report.killSwitches == [RFKillSwitch(name: "hci0", isSoftBlocked: false, isHardBlocked: false)])
        #expect(report.bluezVersion == "5.66")
        #expect(report.interfaces.contains("org.bluez.Adapter1"))
        #expect(report.description.hasPrefix("✓ bluetoothd on the bus: org.bluez has an owner"))
        await fixture.stop()
    }

    @Test func aBlockedRadioAndAPoweredOffAdapterAreReportedWithTheirFixes() async throws {
        let fixture = try await CentralFixture(world: Lab.world)
        try await fixture.simulator.setPowered(false, adapter: "hci0")
        for await state in fixture.central.state.values where state == .poweredOff { break }
        let report = await fixture.central.troubleshoot(killSwitchDirectory: fakeKillSwitches(softBlocked: true))
        #expect(!report.isHealthy)
        let failed = report.checks.filter { !$0.passed }
        #expect(failed.map(\.name) == ["kill switches", "adapter hci0 powered"])
        #expect(
            failed.map(\.fix) == [
                "sudo rfkill unblock bluetooth", "bluetoothctl power on (or set Powered=true on /org/bluez/hci0)",
            ])
        await fixture.stop()
    }

    @Test func noBluetoothdAndARefusingBusAreReported() async throws {
        let bus = try SimulatedBus()
        let thread = try EventLoopThread(name: "troubleshoot-test")
        let central = try Central(bus: bus.bus, loop: thread.loop)
        let report = await central.troubleshoot(killSwitchDirectory: "/nonexistent")
        #expect(report.checks.first?.passed == false)
        #expect(report.checks.first?.fix?.contains("systemctl start bluetooth") == true)
        central.close()
        bus.stop()

        let refusing = try await CentralFixture(world: Lab.world, waitUntilReady: false, refusingClients: true)
        let refused = await refusing.central.troubleshoot(killSwitchDirectory: "/nonexistent")
        #expect(refused.checks.first { $0.name == "access to bluetoothd" }?.passed == false)
        await refusing.stop()
        thread.stop()
    }

    @Test func theBlueZVersionComesFromTheDefaultDeviceID() {
        #expect(Central.bluezVersion(fromModalias: "usb:v1D6Bp0246d0542") == "5.66")
        #expect(Central.bluezVersion(fromModalias: "usb:v1D6Bp0246d0547") == "5.71")
        #expect(Central.bluezVersion(fromModalias: "usb:v05ACp8290d0100") == nil)
    }
}
