import Dispatch
import Foundation
import Ripple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a `file:` URL for ``Foundation/URLSession/DataTaskPublisher``, as Apple's URLSession does (on Linux
/// FoundationNetworking answers `unsupportedURL` for them): the file's contents with a `URLResponse` of their
/// length and MIME type, or the `URLError` Apple's systems give.
enum FileURLLoader {
    /// Reads `url` on a global dispatch queue and calls `completion` there with the result, unless the
    /// returned cancellable is cancelled first.
    static func load(
        _ url: URL,
        completion: @escaping @Sendable (Result<(data: Data, response: URLResponse), URLError>) -> Void
    ) -> any Cancellable {
        let read = DispatchWorkItem { completion(contents(of: url)) }
        DispatchQueue.global().async(execute: read)
        return AnyCancellable { read.cancel() }
    }

    /// The contents of the file at `url` and their response, or why they cannot be read.
    static func contents(of url: URL) -> Result<(data: Data, response: URLResponse), URLError> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return .failure(URLError(.fileDoesNotExist, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        }
        if isDirectory.boolValue {
            return .failure(URLError(.fileIsDirectory, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            return .failure(URLError(.noPermissionsToReadFile, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        }
        do {
            let data = try Data(contentsOf: url)
            let response = URLResponse(
                url: url,
                mimeType: mimeType(ofPathExtension: url.pathExtension),
                expectedContentLength: data.count,
                textEncodingName: nil
            )
            return .success((data, response))
        } catch {
            return .failure(
                URLError(.cannotOpenFile, userInfo: [NSURLErrorFailingURLErrorKey: url, NSUnderlyingErrorKey: error])
            )
        }
    }

    /// The MIME type of a file by its extension; `application/octet-stream` for unknown ones.
    static func mimeType(ofPathExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "txt", "text", "log": "text/plain"
        case "html", "htm": "text/html"
        case "css": "text/css"
        case "csv": "text/csv"
        case "xml": "application/xml"
        case "json": "application/json"
        case "js": "text/javascript"
        case "pdf": "application/pdf"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
