import Foundation

/// Debian's `chromium` run headless, for the dashboard's browser tests: the DOM a page builds
/// (`--dump-dom`) and a screenshot of it.
struct HeadlessChromium {
    let executable: URL

    /// The first `chromium` or `chromium-browser` on `PATH`, or nil.
    static func find() -> HeadlessChromium? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return HeadlessChromium(executable: candidate) }
            }
        }
        return nil
    }

    /// What to say when it is missing: the browser tests fail rather than skip.
    static let missing = "chromium is not installed, so the dashboard cannot be loaded in a browser: run `make deps` "
        + "(it installs Debian's chromium through .ci/install-deps)"

    /// The serialized DOM after the page loaded.
    func dumpDOM(_ url: String) throws -> String {
        String(decoding: try run(["--dump-dom", url]), as: UTF8.self)
    }

    /// Writes a PNG of the page `width` pixels wide to `file`.
    func screenshot(_ url: String, to file: URL, width: Int = 1200, height: Int = 900) throws {
        try? FileManager.default.removeItem(at: file)
        _ = try run(["--screenshot=\(file.path)", "--window-size=\(width),\(height)", "--hide-scrollbars", url])
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ClientError("chromium wrote no screenshot of \(url) to \(file.path)")
        }
    }

    /// How a page lays out in a viewport `width` pixels wide, measured from its DOM.
    struct Layout: Decodable {
        /// `window.innerWidth`: the viewport the page got.
        var viewport: Int
        /// The document's `scrollWidth` and `clientWidth`: wider means a sideways scrollbar.
        var scrollWidth: Int
        var clientWidth: Int
        /// Elements whose right edge lies past the viewport (tag, class, right edge), first few.
        var outside: [String]
        /// Elements other than form fields that scroll sideways themselves (`scrollWidth > clientWidth`).
        var scrolling: [String]

        var overflows: Bool { scrollWidth > clientWidth || !scrolling.isEmpty }
    }

    /// Lays out each page — as the server sent it — at each width and measures it from the
    /// DOM, in one browser start: a local harness page holds one frame per page and width
    /// (`srcdoc`, so the frame's viewport is exactly that wide and media queries apply), and
    /// its script reads each frame's document once everything has loaded.
    ///
    /// The measuring script lives in the harness, not in the dashboard: the dashboard has no
    /// script of its own and its Content-Security-Policy stays as strict as it is; the pages'
    /// markup and inline style sheets are the same bytes the server sent.
    func layouts(of pages: [(name: String, html: String)], widths: [Int]) throws -> [String: Layout] {
        let frames = pages.flatMap { page in widths.map { (id: "\(page.name)@\($0)", width: $0, html: page.html) } }
        let encoder = JSONEncoder()
        let data = String(decoding: try encoder.encode(frames.map { [$0.id, String($0.width), $0.html] }), as: UTF8.self)
            .replacingOccurrences(of: "</", with: "<\\/")
        let harness = """
            <!doctype html><html><head><meta charset="utf-8"></head><body>
            <output id="layouts"></output>
            <script>
            const frames = \(data);
            for (const [id, width, html] of frames) {
              const frame = document.createElement('iframe');
              frame.id = id; frame.style.cssText = `width:${width}px;height:900px;border:0;display:block`;
              frame.srcdoc = html;
              document.body.appendChild(frame);
            }
            addEventListener('load', () => {
              const results = {};
              for (const [id] of frames) {
                const doc = document.getElementById(id).contentDocument, d = doc.documentElement;
                const all = [...doc.body.querySelectorAll('*')];
                const name = e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className : '');
                results[id] = {
                  viewport: doc.defaultView.innerWidth, scrollWidth: d.scrollWidth, clientWidth: d.clientWidth,
                  outside: all.filter(e => e.getBoundingClientRect().right > d.clientWidth + 1).slice(0, 8)
                    .map(e => name(e) + ' ' + Math.round(e.getBoundingClientRect().right)),
                  // A text field scrolls its own value by design; anything else that scrolls sideways hides content.
                  scrolling: all.filter(e => !['INPUT', 'SELECT', 'TEXTAREA'].includes(e.tagName))
                    .filter(e => e.scrollWidth > e.clientWidth + 1 && doc.defaultView.getComputedStyle(e).overflowX !== 'visible')
                    .slice(0, 8).map(e => name(e) + ' ' + e.scrollWidth + '>' + e.clientWidth),
                };
              }
              document.getElementById('layouts').textContent = JSON.stringify(results);
            });
            </script></body></html>
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString).html")
        try harness.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let width = (widths.max() ?? 1280) + 100
        let dom = String(decoding: try run(["--dump-dom", "--hide-scrollbars", "--window-size=\(width),900",
                                            "--virtual-time-budget=10000", file.absoluteString]), as: UTF8.self)
        guard let start = dom.range(of: "<output id=\"layouts\">"),
              let stop = dom.range(of: "</output>", range: start.upperBound..<dom.endIndex), start.upperBound < stop.lowerBound
        else { throw ClientError("the layout harness measured nothing; chromium printed \(dom.prefix(300))") }
        let text = String(dom[start.upperBound..<stop.lowerBound]).replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode([String: Layout].self, from: Data(text.utf8))
    }

    private func run(_ arguments: [String]) throws -> Data {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = executable
        // `--no-sandbox`: tests run as root in CI containers, where the sandbox cannot start.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--user-data-dir=\(profile.path)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientError("chromium \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return data
    }
}
