import ArgumentParser

/// `ripple-ble`: Bluetooth Low Energy from the shell, through BlueZ or Ripple's built-in simulator.
@main
struct RippleBLE: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-ble",
        abstract: "Bluetooth Low Energy from the shell: scan, inspect, read, write, listen and measure, through BlueZ.",
        discussion: """
            Uses bluetoothd on the system bus when it is there. With --simulated, or when no bluetoothd \
            answers on the system bus, it uses Ripple's built-in simulator instead (a simulated bluetoothd \
            on a private bus serving --world, or the demo world: a heart-rate monitor and an LED/button \
            device) and says so on standard error; --real refuses that fall-back.

            Results go to standard output, progress and statistics to standard error.

            scan, listen, bench, sim and serve run until they are done or stopped (Ctrl-C, SIGTERM); with \
            --exit-when-stdin-closes they also stop when standard input reaches its end, so that a script or \
            test harness that starts one with a pipe on its standard input takes it along when it ends, \
            even by SIGKILL.

            Exit status: 0 done; 1 a Bluetooth operation failed (refused, link lost, bad value); 3 listen or \
            bench found lost or reordered notifications; 64 bad arguments; 69 Bluetooth is unavailable (no \
            bluetoothd, no adapter, adapter powered off); 75 timed out; 77 the system bus refuses this \
            user. doctor: 0 when every check passes, 1 when one fails.
            """,
        subcommands: [
            ScanCommand.self, InfoCommand.self, ReadCommand.self, WriteCommand.self, ListenCommand.self,
            BenchCommand.self, DoctorCommand.self, SimCommand.self, ServeCommand.self,
        ])
}
