import CLibUV

/// The packets one read of a ``NotificationSocket`` brought, in arrival order, each made into its own
/// `[UInt8]` as it is iterated.
///
/// It borrows the socket's receive area: use it only during the call it is handed to (copy it, with
/// `Array(packets)`, to keep the packets for later).
struct ReceivedPackets: Sequence {
    /// The first slot; packet `i` starts `i * slotSize` bytes after it.
    let slots: UnsafeRawPointer
    /// The size of each slot.
    let slotSize: Int
    /// Each packet's header, with its length.
    let headers: UnsafePointer<ripple_packet_header>
    /// How many packets there are.
    let count: Int

    /// The packets' bytes, one array each.
    struct Iterator: IteratorProtocol {
        let packets: ReceivedPackets
        var index = 0

        mutating func next() -> [UInt8]? {
            guard index < packets.count else { return nil }
            defer { index += 1 }
            let length = Int(packets.headers[index].length)
            let start = packets.slots + index * packets.slotSize
            return [UInt8](UnsafeRawBufferPointer(start: start, count: length))
        }
    }

    func makeIterator() -> Iterator {
        Iterator(packets: self)
    }

    var underestimatedCount: Int { count }
}
