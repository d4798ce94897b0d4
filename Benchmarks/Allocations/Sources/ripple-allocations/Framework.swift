// The shared pipelines (Pipelines.swift) name Combine's types unqualified; here they are Ripple's, as in
// the `RippleBenchmarks` target.
@_exported import Ripple
