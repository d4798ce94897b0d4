import Foundation
import RippleBlueZSimulator
import Yams

/// Reads a world file (`.json`, `.yaml`, `.yml`) into a checked `SimulatedWorld`, or says what is wrong
/// with it, where.
public enum WorldFileLoader {
    /// The world the file at `path` describes. Throws `SimulatorError.invalidWorld` whose message
    /// names the file and, for each problem, its line when it can be found and its path in the file.
    public static func load(_ path: String) throws(SimulatorError) -> (WorldDescription, SimulatedWorld) {
        let isJSON: Bool
        switch (path as NSString).pathExtension.lowercased() {
        case "json": isJSON = true
        case "yaml", "yml": isJSON = false
        case let other:
            throw .invalidWorld("\(path): a world file is .json, .yaml or .yml, not \"\(other)\"")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidWorld("\(path): cannot be read (\(error.localizedDescription))")
        }
        return try parse(text, isJSON: isJSON, name: path)
    }

    /// The world to serve and the signal order its file names: the file at `path`, or the demo world (in
    /// no particular order) when `path` is nil.
    ///
    /// - Parameter path: the world file, or nil for the demo world.
    /// - Returns: the world, and the order of the file's `signalOrder` (nil when it names none).
    /// - Throws: `SimulatorError.invalidWorld` when the file cannot be read or describes no world, or
    ///   when its `signalOrder` is not an order.
    public static func served(_ path: String?) throws(SimulatorError) -> (SimulatedWorld, BlueZSimulator.SignalOrder?) {
        guard let path else { return (try WorldDescription.demo.makeWorld(), nil) }
        let (description, world) = try load(path)
        return (world, try description.makeSignalOrder())
    }

    /// The world `text` describes (JSON when `isJSON`, else YAML); problems are reported against `name`.
    public static func parse(_ text: String, isJSON: Bool, name: String) throws(SimulatorError) -> (
        WorldDescription, SimulatedWorld
    ) {
        let lines = LineFinder(text)
        do {
            let description = try WorldDescription.decode {
                if isJSON {
                    return try JSONDecoder().decode(WorldDescription.self, from: Data(text.utf8))
                }
                // An empty YAML document is an empty world.
                if text.allSatisfy({ $0.isWhitespace }) { return WorldDescription() }
                return try YAMLDecoder().decode(WorldDescription.self, from: text)
            }
            return (description, try description.makeWorld())
        } catch {
            guard case .invalidWorld(let problems) = error else { throw error }
            let located = problems.split(separator: "\n", omittingEmptySubsequences: false).map { problem in
                lines.locate(String(problem))
            }
            throw .invalidWorld("\(name):\n" + located.map { "  " + $0 }.joined(separator: "\n"))
        }
    }
}

/// Finds the line of a place in a world file (`peripherals[1].services[0].uuid`) by walking the file's
/// YAML node tree (JSON is read as YAML for this).
struct LineFinder {
    private let root: Node?

    init(_ text: String) {
        root = try? Yams.compose(yaml: text)
    }

    /// `problem` ("path: message") with "line N: " before it when the path's line is known.
    func locate(_ problem: String) -> String {
        guard let separator = problem.range(of: ": "),
            let line = line(of: String(problem[..<separator.lowerBound]))
        else { return problem }
        return "line \(line): " + problem
    }

    /// The line of the deepest node on `path` that the file has.
    func line(of path: String) -> Int? {
        guard var node = root, let components = Self.components(of: path) else { return nil }
        for component in components {
            let next: Node?
            switch component {
            case .key(let key): next = node.mapping?[key]
            case .index(let index):
                let sequence = node.sequence.map(Array.init) ?? []
                next = sequence.indices.contains(index) ? sequence[index] : nil
            }
            guard let next else { break }
            node = next
        }
        return node.mark?.line
    }

    private enum Component {
        case key(String)
        case index(Int)
    }

    /// `a.b[2]["k"]` as its keys and indices; nil when it is not such a path.
    private static func components(of path: String) -> [Component]? {
        var components: [Component] = []
        var rest = Substring(path)
        while !rest.isEmpty {
            if rest.hasPrefix("[\"") {
                guard let end = rest.range(of: "\"]") else { return nil }
                components.append(.key(String(rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound])))
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("[") {
                guard let end = rest.firstIndex(of: "]"),
                    let index = Int(rest[rest.index(after: rest.startIndex)..<end])
                else { return nil }
                components.append(.index(index))
                rest = rest[rest.index(after: end)...]
            } else {
                if rest.hasPrefix(".") { rest = rest.dropFirst() }
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                let key = String(rest[..<end])
                guard !key.isEmpty, !key.contains(" ") else { return nil }
                components.append(.key(key))
                rest = rest[end...]
            }
        }
        return components
    }
}
