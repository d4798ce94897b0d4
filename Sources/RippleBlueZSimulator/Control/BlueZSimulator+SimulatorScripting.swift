/// `BlueZSimulator` offers every scripting operation the control service needs.
extension BlueZSimulator: SimulatorScripting {}
