import Benchmark
import Ripple

let benchmarks: @Sendable () -> Void = {
    Benchmark("smoke") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        var sum = 0
        let cancellable = subject.sink { sum &+= $0 }
        for value in benchmark.scaledIterations { subject.send(value) }
        blackHole(sum)
        cancellable.cancel()
    }
}
