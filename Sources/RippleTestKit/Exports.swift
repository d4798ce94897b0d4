// `import RippleTestKit` brings Ripple along: the publishers, operators and schedulers under test.
@_exported import Ripple
