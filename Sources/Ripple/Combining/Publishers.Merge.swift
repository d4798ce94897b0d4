extension Publishers {
    /// A publisher that interleaves the elements of two publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge<A, B>: Publisher
    where
        A: Publisher,
        B: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B

        /// Creates a publisher that merges the elements of `a` and `b`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 2)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge3<A, B, P>
        where
            P: Publisher,
            B.Output == P.Output,
            B.Failure == P.Failure
        {
            Publishers.Merge3(a, b, other)
        }

        /// A publisher that merges this publisher's upstreams with 2 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
        where
            Z: Publisher,
            Y: Publisher,
            B.Output == Z.Output,
            B.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure
        {
            Publishers.Merge4(a, b, z, y)
        }

        /// A publisher that merges this publisher's upstreams with 3 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            B.Output == Z.Output,
            B.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure
        {
            Publishers.Merge5(a, b, z, y, x)
        }

        /// A publisher that merges this publisher's upstreams with 4 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            B.Output == Z.Output,
            B.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure
        {
            Publishers.Merge6(a, b, z, y, x, w)
        }

        /// A publisher that merges this publisher's upstreams with 5 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        ///   - v: The fifth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V)
            -> Publishers.Merge7<A, B, Z, Y, X, W, V>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            V: Publisher,
            B.Output == Z.Output,
            B.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure,
            W.Output == V.Output,
            W.Failure == V.Failure
        {
            Publishers.Merge7(a, b, z, y, x, w, v)
        }

        /// A publisher that merges this publisher's upstreams with 6 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        ///   - v: The fifth publisher to add.
        ///   - u: The sixth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W, V, U>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U)
            -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            V: Publisher,
            U: Publisher,
            B.Output == Z.Output,
            B.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure,
            W.Output == V.Output,
            W.Failure == V.Failure,
            V.Output == U.Output,
            V.Failure == U.Failure
        {
            Publishers.Merge8(a, b, z, y, x, w, v, u)
        }
    }

    /// A publisher that interleaves the elements of three publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge3<A, B, C>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C

        /// Creates a publisher that merges the elements of `a`, `b` and `c`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 3)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge4<A, B, C, P>
        where
            P: Publisher,
            C.Output == P.Output,
            C.Failure == P.Failure
        {
            Publishers.Merge4(a, b, c, other)
        }

        /// A publisher that merges this publisher's upstreams with 2 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
        where
            Z: Publisher,
            Y: Publisher,
            C.Output == Z.Output,
            C.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure
        {
            Publishers.Merge5(a, b, c, z, y)
        }

        /// A publisher that merges this publisher's upstreams with 3 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            C.Output == Z.Output,
            C.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure
        {
            Publishers.Merge6(a, b, c, z, y, x)
        }

        /// A publisher that merges this publisher's upstreams with 4 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            C.Output == Z.Output,
            C.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure
        {
            Publishers.Merge7(a, b, c, z, y, x, w)
        }

        /// A publisher that merges this publisher's upstreams with 5 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        ///   - v: The fifth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W, V>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V)
            -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            V: Publisher,
            C.Output == Z.Output,
            C.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure,
            W.Output == V.Output,
            W.Failure == V.Failure
        {
            Publishers.Merge8(a, b, c, z, y, x, w, v)
        }
    }

    /// A publisher that interleaves the elements of four publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge4<A, B, C, D>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        D: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure,
        C.Output == D.Output,
        C.Failure == D.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D

        /// Creates a publisher that merges the elements of `a`, `b`, `c` and `d`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        ///   - d: the fourth publisher to merge.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 4)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
            d.subscribe(sources[3])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge5<A, B, C, D, P>
        where
            P: Publisher,
            D.Output == P.Output,
            D.Failure == P.Failure
        {
            Publishers.Merge5(a, b, c, d, other)
        }

        /// A publisher that merges this publisher's upstreams with 2 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge6<A, B, C, D, Z, Y>
        where
            Z: Publisher,
            Y: Publisher,
            D.Output == Z.Output,
            D.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure
        {
            Publishers.Merge6(a, b, c, d, z, y)
        }

        /// A publisher that merges this publisher's upstreams with 3 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge7<A, B, C, D, Z, Y, X>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            D.Output == Z.Output,
            D.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure
        {
            Publishers.Merge7(a, b, c, d, z, y, x)
        }

        /// A publisher that merges this publisher's upstreams with 4 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        ///   - w: The fourth publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge8<A, B, C, D, Z, Y, X, W>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            W: Publisher,
            D.Output == Z.Output,
            D.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure,
            X.Output == W.Output,
            X.Failure == W.Failure
        {
            Publishers.Merge8(a, b, c, d, z, y, x, w)
        }
    }

    /// A publisher that interleaves the elements of five publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge5<A, B, C, D, E>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure,
        C.Output == D.Output,
        C.Failure == D.Failure,
        D.Output == E.Output,
        D.Failure == E.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D
        /// The fifth publisher to merge.
        public let e: E

        /// Creates a publisher that merges the elements of `a`, `b`, `c`, `d` and `e`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        ///   - d: the fourth publisher to merge.
        ///   - e: the fifth publisher to merge.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 5)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
            d.subscribe(sources[3])
            e.subscribe(sources[4])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
        where
            P: Publisher,
            E.Output == P.Output,
            E.Failure == P.Failure
        {
            Publishers.Merge6(a, b, c, d, e, other)
        }

        /// A publisher that merges this publisher's upstreams with 2 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
        where
            Z: Publisher,
            Y: Publisher,
            E.Output == Z.Output,
            E.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure
        {
            Publishers.Merge7(a, b, c, d, e, z, y)
        }

        /// A publisher that merges this publisher's upstreams with 3 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        ///   - x: The third publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
        where
            Z: Publisher,
            Y: Publisher,
            X: Publisher,
            E.Output == Z.Output,
            E.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure,
            Y.Output == X.Output,
            Y.Failure == X.Failure
        {
            Publishers.Merge8(a, b, c, d, e, z, y, x)
        }
    }

    /// A publisher that interleaves the elements of six publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge6<A, B, C, D, E, F>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure,
        C.Output == D.Output,
        C.Failure == D.Failure,
        D.Output == E.Output,
        D.Failure == E.Failure,
        E.Output == F.Output,
        E.Failure == F.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D
        /// The fifth publisher to merge.
        public let e: E
        /// The sixth publisher to merge.
        public let f: F

        /// Creates a publisher that merges the elements of `a`, `b`, `c`, `d`, `e` and `f`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        ///   - d: the fourth publisher to merge.
        ///   - e: the fifth publisher to merge.
        ///   - f: the sixth publisher to merge.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 6)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
            d.subscribe(sources[3])
            e.subscribe(sources[4])
            f.subscribe(sources[5])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge7<A, B, C, D, E, F, P>
        where
            P: Publisher,
            F.Output == P.Output,
            F.Failure == P.Failure
        {
            Publishers.Merge7(a, b, c, d, e, f, other)
        }

        /// A publisher that merges this publisher's upstreams with 2 more publishers.
        ///
        /// - Parameters:
        ///   - z: The first publisher to add.
        ///   - y: The second publisher to add.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge8<A, B, C, D, E, F, Z, Y>
        where
            Z: Publisher,
            Y: Publisher,
            F.Output == Z.Output,
            F.Failure == Z.Failure,
            Z.Output == Y.Output,
            Z.Failure == Y.Failure
        {
            Publishers.Merge8(a, b, c, d, e, f, z, y)
        }
    }

    /// A publisher that interleaves the elements of seven publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge7<A, B, C, D, E, F, G>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        G: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure,
        C.Output == D.Output,
        C.Failure == D.Failure,
        D.Output == E.Output,
        D.Failure == E.Failure,
        E.Output == F.Output,
        E.Failure == F.Failure,
        F.Output == G.Output,
        F.Failure == G.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D
        /// The fifth publisher to merge.
        public let e: E
        /// The sixth publisher to merge.
        public let f: F
        /// The seventh publisher to merge.
        public let g: G

        /// Creates a publisher that merges the elements of `a`, `b`, `c`, `d`, `e`, `f` and `g`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        ///   - d: the fourth publisher to merge.
        ///   - e: the fifth publisher to merge.
        ///   - f: the sixth publisher to merge.
        ///   - g: the seventh publisher to merge.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 7)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
            d.subscribe(sources[3])
            e.subscribe(sources[4])
            f.subscribe(sources[5])
            g.subscribe(sources[6])
        }

        /// A publisher that merges this publisher's upstreams with another publisher.
        ///
        /// - Parameter other: Another publisher with the same output and failure types.
        /// - Returns: A publisher of all the merged publishers' values, in arrival order.
        public func merge<P>(with other: P) -> Publishers.Merge8<A, B, C, D, E, F, G, P>
        where
            P: Publisher,
            G.Output == P.Output,
            G.Failure == P.Failure
        {
            Publishers.Merge8(a, b, c, d, e, f, g, other)
        }
    }

    /// A publisher that interleaves the elements of eight publishers with the same output and failure
    /// types, in the order they arrive.
    ///
    /// It finishes once all of them finished (and every buffered element was delivered) and fails with
    /// the first failure, cancelling the others. Demand is shared: while the downstream demand is
    /// finite, each upstream is asked for one element at a time; an element that arrives when the
    /// downstream wants nothing waits (one per upstream) until the downstream asks for more.
    public struct Merge8<A, B, C, D, E, F, G, H>: Publisher
    where
        A: Publisher,
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        G: Publisher,
        H: Publisher,
        A.Output == B.Output,
        A.Failure == B.Failure,
        B.Output == C.Output,
        B.Failure == C.Failure,
        C.Output == D.Output,
        C.Failure == D.Failure,
        D.Output == E.Output,
        D.Failure == E.Failure,
        E.Output == F.Output,
        E.Failure == F.Failure,
        F.Output == G.Output,
        F.Failure == G.Failure,
        G.Output == H.Output,
        G.Failure == H.Failure
    {
        /// The upstreams' common element type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// The first publisher to merge.
        public let a: A
        /// The second publisher to merge.
        public let b: B
        /// The third publisher to merge.
        public let c: C
        /// The fourth publisher to merge.
        public let d: D
        /// The fifth publisher to merge.
        public let e: E
        /// The sixth publisher to merge.
        public let f: F
        /// The seventh publisher to merge.
        public let g: G
        /// The eighth publisher to merge.
        public let h: H

        /// Creates a publisher that merges the elements of `a`, `b`, `c`, `d`, `e`, `f`, `g` and `h`.
        ///
        /// - Parameters:
        ///   - a: the first publisher to merge.
        ///   - b: the second publisher to merge.
        ///   - c: the third publisher to merge.
        ///   - d: the fourth publisher to merge.
        ///   - e: the fifth publisher to merge.
        ///   - f: the sixth publisher to merge.
        ///   - g: the seventh publisher to merge.
        ///   - h: the eighth publisher to merge.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
            self.h = h
        }

        /// Sends the subscription (`"Merge"`) to `subscriber`, then subscribes to each upstream in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.merge, downstream: subscriber)
            let sources = fanIn.makeSources(count: 8)
            subscriber.receive(subscription: fanIn)
            a.subscribe(sources[0])
            b.subscribe(sources[1])
            c.subscribe(sources[2])
            d.subscribe(sources[3])
            e.subscribe(sources[4])
            f.subscribe(sources[5])
            g.subscribe(sources[6])
            h.subscribe(sources[7])
        }
    }

}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Merge4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e
    }
}

extension Publishers.Merge6: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
    }
}

extension Publishers.Merge7: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
            && lhs.g == rhs.g
    }
}

extension Publishers.Merge8: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable, H: Equatable {
    /// Whether both merge the same publishers.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
            && lhs.g == rhs.g && lhs.h == rhs.h
    }
}

extension Publisher {
    /// Interleaves this publisher's elements with `other`'s, in the order they arrive; finishes when
    /// both finished, fails with the first failure.
    ///
    /// - Parameter other: Another publisher with the same output and failure types.
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<P>(with other: P) -> Publishers.Merge<Self, P>
    where P: Publisher, Failure == P.Failure, Output == P.Output {
        Publishers.Merge(self, other)
    }

    /// Interleaves this publisher's elements with those of 2 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
    where
        B: Publisher,
        C: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output
    {
        Publishers.Merge3(self, b, c)
    }

    /// Interleaves this publisher's elements with those of 3 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    ///   - d: The fourth publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C, D>(with b: B, _ c: C, _ d: D) -> Publishers.Merge4<Self, B, C, D>
    where
        B: Publisher,
        C: Publisher,
        D: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output
    {
        Publishers.Merge4(self, b, c, d)
    }

    /// Interleaves this publisher's elements with those of 4 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    ///   - d: The fourth publisher to merge (this one is the first).
    ///   - e: The fifth publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C, D, E>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
    where
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output,
        D.Failure == E.Failure,
        D.Output == E.Output
    {
        Publishers.Merge5(self, b, c, d, e)
    }

    /// Interleaves this publisher's elements with those of 5 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    ///   - d: The fourth publisher to merge (this one is the first).
    ///   - e: The fifth publisher to merge (this one is the first).
    ///   - f: The sixth publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C, D, E, F>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F)
        -> Publishers.Merge6<Self, B, C, D, E, F>
    where
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output,
        D.Failure == E.Failure,
        D.Output == E.Output,
        E.Failure == F.Failure,
        E.Output == F.Output
    {
        Publishers.Merge6(self, b, c, d, e, f)
    }

    /// Interleaves this publisher's elements with those of 6 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    ///   - d: The fourth publisher to merge (this one is the first).
    ///   - e: The fifth publisher to merge (this one is the first).
    ///   - f: The sixth publisher to merge (this one is the first).
    ///   - g: The seventh publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C, D, E, F, G>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G)
        -> Publishers.Merge7<Self, B, C, D, E, F, G>
    where
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        G: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output,
        D.Failure == E.Failure,
        D.Output == E.Output,
        E.Failure == F.Failure,
        E.Output == F.Output,
        F.Failure == G.Failure,
        F.Output == G.Output
    {
        Publishers.Merge7(self, b, c, d, e, f, g)
    }

    /// Interleaves this publisher's elements with those of 7 other publishers, in the order they
    /// arrive; finishes when all finished, fails with the first failure.
    ///
    /// - Parameters:
    ///   - b: The second publisher to merge (this one is the first).
    ///   - c: The third publisher to merge (this one is the first).
    ///   - d: The fourth publisher to merge (this one is the first).
    ///   - e: The fifth publisher to merge (this one is the first).
    ///   - f: The sixth publisher to merge (this one is the first).
    ///   - g: The seventh publisher to merge (this one is the first).
    ///   - h: The eighth publisher to merge (this one is the first).
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge<B, C, D, E, F, G, H>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H)
        -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
    where
        B: Publisher,
        C: Publisher,
        D: Publisher,
        E: Publisher,
        F: Publisher,
        G: Publisher,
        H: Publisher,
        Self.Failure == B.Failure,
        Self.Output == B.Output,
        B.Failure == C.Failure,
        B.Output == C.Output,
        C.Failure == D.Failure,
        C.Output == D.Output,
        D.Failure == E.Failure,
        D.Output == E.Output,
        E.Failure == F.Failure,
        E.Output == F.Output,
        F.Failure == G.Failure,
        F.Output == G.Output,
        G.Failure == H.Failure,
        G.Output == H.Output
    {
        Publishers.Merge8(self, b, c, d, e, f, g, h)
    }

    /// Interleaves this publisher's elements with those of `other`, a publisher of the same type, in the
    /// order they arrive; finishes when both finished, fails with the first failure.
    ///
    /// - Parameter other: Another publisher with the same output and failure types.
    /// - Returns: A publisher of all the merged publishers' values, in arrival order.
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }
}
