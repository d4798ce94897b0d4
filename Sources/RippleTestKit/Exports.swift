// `import RippleTestKit` brings Ripple along: the publishers under test, and `VirtualTimeScheduler`, the
// scheduler whose clock only the test moves (it stays in Ripple, where `import Ripple` code already uses it).
@_exported import Ripple
