import Ripple
import RippleBlueZSimulator
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZ

@Suite(.timeLimit(Patience.test)) struct TroubleshootTests {
    /// A fake `/sys/class/rfkill` with one Bluetooth switch and one Wi-Fi switch, both soft-blocked or neither
    /// (files beside this one, so that no run leaves any behind).
    private func fakeKillSwitches(softBlocked: Bool) -> String {
        let here = #filePath
        let folder = here[..<(here.lastIndex(of: "/") ?? here.startIndex)]
        return folder + "/KillSwitches/" + (softBlocked ? "soft-blocked" : "unblocked")
    }

    @Test func aHealthySimulatorPassesEveryCheck() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let report = await fixture.central.troubleshoot(killSwitchDirectory: fakeKillSwitches(softBlocked: false))
            #expect(report.isHealthy)
            #expect(
                report.checks.map(\.name) == [
                    "bluetoothd on the bus", "access to bluetoothd", "adapters", "kill switches",
                    "adapter hci0 powered",
                ])
            #expect(report.killSwitches == [RFKillSwitch(name: "hci0", isSoftBlocked: false, isHardBlocked: false)])
            #expect(report.bluezVersion == "5.66")
            #expect(report.interfaces.contains("org.bluez.Adapter1"))
            #expect(report.description.hasPrefix("✓ bluetoothd on the bus: org.bluez has an owner"))
        }
    }

    @Test func aPoweredOffAdapterIsReportedWithItsFix() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            for await state in fixture.central.state.values where state == .poweredOff { break }
            let report = await fixture.central.troubleshoot(killSwitchDirectory: fakeKillSwitches(softBlocked: false))
            #expect(!report.isHealthy)
            #expect(
                report.checks.map(\.status) == [.passed, .passed, .passed, .passed, .failed])
            #expect(report.firstFix == "bluetoothctl power on (or set Powered=true on /org/bluez/hci0)")
        }
    }

    @Test func aBlockedRadioIsTheCauseAndPoweringIsSkipped() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            for await state in fixture.central.state.values where state == .poweredOff { break }
            let report = await fixture.central.troubleshoot(killSwitchDirectory: fakeKillSwitches(softBlocked: true))
            #expect(
                report.checks.map(\.status) == [
                    .passed, .passed, .passed, .failed, .skipped(reason: "kill switches failed"),
                ])
            #expect(report.checks.compactMap(\.fix) == ["sudo rfkill unblock bluetooth"])
            #expect(report.firstFix == "sudo rfkill unblock bluetooth")
            #expect(report.description.contains("– adapter hci0 powered: not checked: kill switches failed"))
        }
    }

    @Test func noBluetoothdIsOneCauseWithOneFix() async throws {
        let bus = try SimulatedBus()
        let thread = try EventLoopThread(name: "troubleshoot-test")
        let central = try Central(bus: bus.bus, loop: thread.loop)
        let report = await central.troubleshoot(killSwitchDirectory: "/nonexistent")
        #expect(
            report.checks.map(\.status) == [
                .failed, .skipped(reason: "bluetoothd on the bus failed"),
                .skipped(reason: "bluetoothd on the bus failed"), .passed,
            ])
        #expect(report.checks.compactMap(\.fix).count == 1)
        #expect(report.firstFix?.contains("systemctl start bluetooth") == true)
        central.close()
        bus.stop()
        thread.stop()
    }

    @Test func aRefusingBusIsOneCauseWithOneFix() async throws {
        try await withFixture(CentralFixture(world: Lab.world, waitUntilReady: false, refusingClients: true)) {
            refusing in
            let refused = await refusing.central.troubleshoot(killSwitchDirectory: "/nonexistent")
            #expect(
                refused.checks.map(\.name) == [
                    "bluetoothd on the bus", "access to bluetoothd", "adapters", "kill switches",
                ])
            #expect(
                refused.checks.map(\.status) == [
                    .passed, .failed, .skipped(reason: "access to bluetoothd failed"), .passed,
                ])
            #expect(
                refused.checks.compactMap(\.fix) == [
                    "run as root or as a member of the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again)"
                ])
            #expect(!refused.description.contains("plug in a Bluetooth adapter"))
            #expect(refused.description.contains("– adapters: not checked: access to bluetoothd failed"))
        }
    }

    @Test func theBlueZVersionComesFromTheDefaultDeviceID() {
        #expect(Central.bluezVersion(fromModalias: "usb:v1D6Bp0246d0542") == "5.66")
        #expect(Central.bluezVersion(fromModalias: "usb:v1D6Bp0246d0547") == "5.71")
        #expect(Central.bluezVersion(fromModalias: "usb:v05ACp8290d0100") == nil)
    }
}
