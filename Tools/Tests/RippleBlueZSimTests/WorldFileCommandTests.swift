import Foundation
import Testing
import ToolTestSupport

/// Runs the built `ripple-bluez-sim` (beside the test bundle) and collects what it prints.
enum SimulatorCommand {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// The executable, built with the tests (`swift build --build-tests` builds every product).
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent().appendingPathComponent("ripple-bluez-sim")
    }

    /// The Tools package's folder.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Runs the command with `arguments` to its end.
    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self))
    }

    /// Writes `text` to a file named `name` in the ``ScratchFolder`` (gone when the test process ends) and
    /// returns its path.
    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        try ScratchFolder.file(named: name, holding: text)
    }
}

@Suite struct WorldFileCommandTests {
    @Test func theExampleWorldsAreValid() throws {
        let demo = try SimulatorCommand.run(
            [
                "--check", "--world",
                SimulatorCommand.packageRoot.appendingPathComponent("Examples/Worlds/demo.yaml").path,
            ])
        #expect(demo.status == 0, "\(demo.error)")
        #expect(demo.output.contains(#"C0:FF:EE:00:00:01 "Ripple HRM" rssi -55 dBm, services: 0x180d, 0x180f, 0x180a"#))
        #expect(demo.output.contains(#"C0:FF:EE:00:00:03 "Ripple Thermo" rssi -72 dBm, services: 0x181a, 0x180a"#))
        let interop = try SimulatorCommand.run(
            [
                "--check", "--world",
                SimulatorCommand.packageRoot.appendingPathComponent("Examples/Worlds/interop.json").path,
            ])
        #expect(interop.status == 0, "\(interop.error)")
        #expect(interop.output.contains("52495054-0000-4000-8000-000000000001"))
        let builtIn = try SimulatorCommand.run(["--check"])
        #expect(builtIn.output.hasPrefix("the demo world: valid\nadapter hci0 00:1A:7D:DA:71:13\n"))
    }

    @Test func yamlReadsLikeJSON() throws {
        let yaml = try SimulatorCommand.temporaryFile(
            "world.yml",
            """
            peripherals:
              - address: c0:ff:ee:00:00:10
                name: Plain
                appearance: 0x0341
                manufacturerData: {0x004C: "0215"}
                advertisingInterval: 1s
                services:
                  - uuid: 2a00
                    characteristics:
                      - uuid: 2901
                        flags: [read]
                        value: 0102
            """)
        let result = try SimulatorCommand.run(["--check", "--world", yaml])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains(#"C0:FF:EE:00:00:10 "Plain" rssi -60 dBm, services: 0x2a00"#))
        let empty = try SimulatorCommand.run([
            "--check", "--world", try SimulatorCommand.temporaryFile("empty.yaml", "\n"),
        ])
        #expect(empty.output.hasSuffix(": valid\nadapter hci0 00:1A:7D:DA:71:13\n"))
    }

    @Test func problemsNameTheirLine() throws {
        let yaml = try SimulatorCommand.temporaryFile(
            "bad.yaml",
            """
            peripherals:
              - preset: heart-rate-monitor
                rssi: 40
              - address: "C0:FF"
                services:
                  - uuid: ffe0
                    characteristics:
                      - uuid: ffe1
                        flags: [read, notfy]
            """)
        let result = try SimulatorCommand.run(["--check", "--world", yaml])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        let lines = result.error.split(separator: "\n").map(String.init)
        #expect(lines.first == "ripple-bluez-sim: invalid simulated world: \(yaml):")
        #expect(lines.dropFirst().first == "  line 3: peripherals[0].rssi: 40 is out of range (-127…20 dB)")
        #expect(
            lines.dropFirst(2).first?.hasPrefix(#"  line 4: peripherals[1].address: "C0:FF" is not a device address"#)
                == true)
        #expect(
            lines.dropFirst(3).first?.hasPrefix(
                #"  line 9: peripherals[1].services[0].characteristics[0].flags[1]: unknown flag "notfy""#) == true)

        let json = try SimulatorCommand.temporaryFile(
            "typo.json", "{\n  \"peripherals\": [\n    {\"adress\": 1}\n  ]\n}\n")
        let typo = try SimulatorCommand.run(["--check", "--world", json])
        #expect(typo.error.contains(#"  line 3: peripherals[0].adress: unknown key "adress""#), "\(typo.error)")
    }

    @Test func unreadableFilesAndBadOptionsAreRefused() throws {
        let broken = try SimulatorCommand.run(
            [
                "--check", "--world",
                try SimulatorCommand.temporaryFile("broken.yaml", "peripherals:\n  - address: [1\n"),
            ])
        #expect(broken.status == 2)
        #expect(broken.error.contains("not valid YAML"))
        let toml = try SimulatorCommand.run(["--check", "--world", "/nonexistent/world.toml"])
        #expect(
            toml.error
                == #"ripple-bluez-sim: invalid simulated world: /nonexistent/world.toml: a world file is .json, .yaml or .yml, not "toml""#
                + "\n")
        let missing = try SimulatorCommand.run(["--check", "--world", "/nonexistent/world.json"])
        #expect(missing.status == 2)
        #expect(
            missing.error.hasPrefix(
                "ripple-bluez-sim: invalid simulated world: /nonexistent/world.json: cannot be read"))
        let both = try SimulatorCommand.run(["--bus-address", "unix:path=/tmp/x", "--system-bus"])
        #expect(both.status == 64)
        #expect(both.error.contains("--bus-address and --system-bus cannot be used together."))
    }
}

@Suite struct SignalOrderCommandTests {
    @Test func theWorldFilesKeyChoosesTheOrderAndTheOptionOverridesIt() throws {
        let world = try SimulatorCommand.temporaryFile("shuffled.yaml", "signalOrder: shuffled:42\n")
        let fromFile = try SimulatorCommand.run(["--check", "--world", world])
        #expect(fromFile.status == 0, "\(fromFile.error)")
        #expect(fromFile.output.hasSuffix("\nsignal order: shuffled:42\n"))
        let overridden = try SimulatorCommand.run(["--check", "--world", world, "--order", "shuffled:0x10"])
        #expect(overridden.output.hasSuffix("\nsignal order: shuffled:16\n"))
        let inOrder = try SimulatorCommand.run(["--check", "--world", world, "--order", "in-order"])
        #expect(inOrder.output.hasSuffix("\nsignal order: in-order\n"))
        let unnamed = try SimulatorCommand.run(["--check"])
        #expect(!unnamed.output.contains("signal order"))
    }

    @Test func anOrderThatIsNoneIsRefused() throws {
        let world = try SimulatorCommand.temporaryFile(
            "sorted.yaml", "peripherals: []\nsignalOrder: sorted\n")
        let file = try SimulatorCommand.run(["--check", "--world", world])
        #expect(file.status == 2)
        #expect(
            file.error.contains(
                #"  line 2: signalOrder: "sorted" is not an order: use in-order or shuffled:SEED (a 64-bit seed)"#),
            "\(file.error)")
        let option = try SimulatorCommand.run(["--check", "--order", "shuffled:-1"])
        #expect(option.status == 64)
        #expect(option.error.contains("--order shuffled:-1 is not an order"))
    }
}
