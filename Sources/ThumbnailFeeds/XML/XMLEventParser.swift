internal import CLazyLibXML2

/// What `XMLEventParser` reports, in document order.
protocol XMLEventHandler: AnyObject {
    /// Checked after every event: once it is `true`, libxml2 is stopped and nothing more is reported.
    var isFinished: Bool { get }

    /// A start tag, its name resolved against the namespaces in scope. `attributes` are keyed by their
    /// name as written (`media:url` stays prefixed); namespace declarations are not among them.
    func startElement(_ element: XMLName, prefix: String?, attributes: [String: String])
    func endElement()
    /// Character data, text and CDATA alike, in pieces of any size; entities and character references
    /// already replaced.
    func text(_ bytes: UnsafeBufferPointer<UInt8>)
    /// An error or warning, with libxml2's code (`xmlParserErrors`) and message, and where libxml2 was
    /// in the document when it found it.
    func error(code: Int, message: String, line: Int, column: Int)
    /// An entity declaration in the DTD, refused: libxml2 is stopped at once, and reports nothing more.
    /// `line` and `column` are where libxml2 was when it had read the declaration: at its end.
    func refusedEntityDeclaration(named name: String, line: Int, column: Int)
}

/// libxml2's SAX2 push parser, set up for documents from strangers.
///
/// Entity declarations, general or parameter, internal or external, are refused where libxml2 reports
/// them (its `entityDecl` and `unparsedEntityDecl` callbacks), so after it has decoded the document,
/// whatever its encoding: UTF-16 with or without a byte-order mark, UTF-7 or EBCDIC hide nothing. The
/// parse stops there, before anything could refer to the entity. Feeds never need entities of their own,
/// and libxml2 2.9 does not limit one large entity referenced many times.
///
/// There are no callbacks for entity lookup or the external subset either, so libxml2 loads no DTD and
/// knows no entity but the five predefined ones; the DOCTYPE itself (RSS 0.91 has one) is harmless.
/// Neither `XML_PARSE_DTDLOAD` nor `XML_PARSE_NOENT` is set, nor `XML_PARSE_HUGE`, so libxml2's limits
/// on entity expansion, names and text stay on, and `XML_PARSE_NONET` forbids the network should
/// anything ever try. Recovery mode is on, as in FoundationXML: warnings and namespace errors do not
/// stop the parse, and the handler decides which errors do.
///
/// The first parse of a process loads libxml2 (`lazy_libxml2_load`); its functions are called through
/// the table that returns.
enum XMLEventParser {
    /// Parses `document` from byte `start` on, reporting to `handler`.
    ///
    /// Fewer than 4 bytes are not parsed: libxml2's push parser needs 4 to detect the encoding, and the
    /// shortest element, `<a/>`, takes 4 anyway. Elements nested deeper than `FeedLimits.maximumDepth`
    /// are an error (`LibXML2Error.nestingTooDeep`), and the parse stops there: each level costs libxml2
    /// and the handler memory, and libxml2 2.9's push parser has no limit of its own.
    /// - Throws: ``FeedError/libraryUnavailable(reason:)`` when libxml2 cannot be loaded, or
    ///   ``FeedError/unreadable(reason:)`` when the document cannot be read; the document's own errors go
    ///   to `handler`.
    static func parse(_ document: FeedBytes, from start: Int = 0,
                      reportingTo handler: any XMLEventHandler) throws(FeedError) {
        let first = try document.bytes(in: start..<start + 4)
        guard first.count == 4 else { return }
        var reason: UnsafePointer<CChar>?
        guard let libxml2 = lazy_libxml2_load(&reason)?.pointee else {
            throw .libraryUnavailable(reason: reason.map { String(cString: $0) } ?? "libxml2 could not be loaded")
        }
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = startElement
        sax.endElementNs = endElement
        sax.characters = characters
        // Whitespace-only text between elements is text too (the same callback also spares libxml2
        // deciding which whitespace is ignorable).
        sax.ignorableWhitespace = characters
        sax.cdataBlock = characters
        sax.serror = structuredError
        sax.entityDecl = entityDeclaration
        sax.unparsedEntityDecl = unparsedEntityDeclaration

        let session = Session(handler: handler, libxml2: libxml2)
        // Errors raised outside the parser (bytes the document's encoding cannot convert, and the I/O
        // error that follows) go to the thread's handler, which prints them to standard error by
        // default, past the caller and its escaping. They come to the session for this parse: the parser
        // itself only says, after them, that the document ended early.
        libxml2.xmlSetStructuredErrorFunc(Unmanaged.passUnretained(session).toOpaque(), outsideError)
        defer { libxml2.xmlSetStructuredErrorFunc(nil) { _, _ in } }
        // libxml2 copies the handler; the session outlives the context.
        let created = first.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                libxml2.xmlCreatePushParserCtxt(&sax, Unmanaged.passUnretained(session).toOpaque(), $0.baseAddress, 4, nil)
            }
        }
        guard let context = created else {
            handler.error(code: Int(XML_ERR_NO_MEMORY.rawValue), message: "", line: 1, column: 1)
            return
        }
        defer {
            // libxml2 keeps a declared entity in a document of its own even for SAX ("for expat
            // compatibility"), and leaves that document to the caller of its push parser.
            if let entities = context.pointee.myDoc { libxml2.xmlFreeDoc(entities) }
            libxml2.xmlFreeParserCtxt(context)
        }
        session.context = context
        _ = libxml2.xmlCtxtUseOptions(context, Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue))
        // What XML_PARSE_NOENT would also do, without its loading: attribute values get a plain "&"
        // for `&amp;` and `&#38;`, not the "&#38;" libxml2 otherwise leaves for a tree builder. No
        // other entity can be substituted: declaring one stops the parse.
        context.pointee.replaceEntities = 1
        var offset = start + 4
        try document.forEachChunk(from: offset, chunkSize: chunkSize) { chunk throws(FeedError) in
            offset += chunk.count
            let isLast = offset == document.count ? Int32(1) : 0
            _ = libxml2.xmlParseChunk(context, chunk.baseAddress?.assumingMemoryBound(to: CChar.self),
                                      Int32(chunk.count), isLast)
            return !session.isStopped
        }
        if offset == start + 4 {
            _ = libxml2.xmlParseChunk(context, nil, 0, 1)
        }
        session.reportUndecodableBytes()
        withExtendedLifetime(session) {}
    }

    /// How much of the document libxml2 is given at a time. Given more than 10 MB at once, it stops with
    /// "Huge input lookup" (its limit on looking ahead, without XML_PARSE_HUGE, which would also lift the
    /// limits on names and text); pieces also keep its buffer, and ours, small.
    private static let chunkSize = 1 << 16

    /// The handler, libxml2's functions and the parser context, for the callbacks (libxml2's user data).
    private final class Session {
        let handler: any XMLEventHandler
        let libxml2: lazy_libxml2
        var context: xmlParserCtxtPtr?
        /// Whether libxml2 was stopped: it reads no more of the document.
        private(set) var isStopped = false
        /// How many elements are open.
        var depth = 0
        /// The document's encoding, once libxml2 failed to convert its bytes and until that is reported.
        var undecodableEncoding: String?

        init(handler: any XMLEventHandler, libxml2: lazy_libxml2) {
            self.handler = handler
            self.libxml2 = libxml2
        }

        static func from(_ userData: UnsafeMutableRawPointer?) -> Session {
            Unmanaged<Session>.fromOpaque(userData!).takeUnretainedValue()
        }

        /// Stops libxml2 once the handler has seen enough.
        func stopIfFinished() {
            if handler.isFinished { stop() }
        }

        /// Stops libxml2: it reads no more of the document.
        func stop() {
            guard let context, !isStopped else { return }
            libxml2.xmlStopParser(context)
            isStopped = true
        }

        /// Tells the handler about an entity declaration, and stops libxml2 before it reads any further.
        func refuseEntityDeclaration(named name: UnsafePointer<xmlChar>?) {
            guard let context, !isStopped else { return }
            let (line, column) = position(in: context)
            handler.refusedEntityDeclaration(named: name.map { String(cString: $0) } ?? "", line: line, column: column)
            stop()
        }

        /// Reports bytes the document's encoding could not convert, once, where libxml2 stopped for them:
        /// at the parser's next error (that the document ended early), or at the end.
        func reportUndecodableBytes() {
            guard let encoding = undecodableEncoding, let context else { return }
            undecodableEncoding = nil
            let (line, column) = position(in: context)
            handler.error(code: LibXML2Error.undecodableBytes, message: encoding, line: line, column: column)
            stopIfFinished()
        }

        /// The encoding the document declares, or else the one libxml2 detected (UTF-16 from its first bytes).
        func encodingName(of context: xmlParserCtxtPtr) -> String {
            if let declared = context.pointee.encoding { return String(cString: declared) }
            if let detected = context.pointee.input?.pointee.buf?.pointee.encoder?.pointee.name { return String(cString: detected) }
            return "the document's encoding"
        }

        /// Where libxml2 is in the document, as it counts lines and columns (from 1).
        func position(in context: xmlParserCtxtPtr) -> (line: Int, column: Int) {
            (Int(libxml2.xmlSAX2GetLineNumber(context)), Int(libxml2.xmlSAX2GetColumnNumber(context)))
        }
    }

    private static let startElement: startElementNsSAX2Func = { userData, localName, prefix, uri, _, _, attributeCount, _, attributes in
        let session = Session.from(userData)
        var values: [String: String] = [:]
        if let attributes {
            // Five pointers per attribute: local name, prefix, namespace URI, value start, value end.
            for index in stride(from: 0, to: Int(attributeCount) * 5, by: 5) {
                guard let name = attributes[index], let start = attributes[index + 3], let end = attributes[index + 4] else {
                    continue
                }
                let local = String(cString: name)
                let key = attributes[index + 1].map { String(cString: $0) + ":" + local } ?? local
                // A value longer than a feed keeps is not copied whole (libxml2 allows 10 MB).
                let kept = UnsafeBufferPointer(start: start, count: min(end - start, FeedLimits.maximumTextBytes + 1))
                values[key] = FeedLimits.cut(Array(kept), wasLonger: end - start > FeedLimits.maximumTextBytes)
            }
        }
        session.depth += 1
        if session.depth > FeedLimits.maximumDepth, let context = session.context {
            let (line, column) = session.position(in: context)
            session.handler.error(code: LibXML2Error.nestingTooDeep, message: "", line: line, column: column)
            session.stop()
            return
        }
        let element = XMLName(namespace: uri.map { String(cString: $0) } ?? "", local: String(cString: localName!))
        session.handler.startElement(element, prefix: prefix.map { String(cString: $0) }, attributes: values)
        session.stopIfFinished()
    }

    private static let endElement: endElementNsSAX2Func = { userData, _, _, _ in
        let session = Session.from(userData)
        session.depth -= 1
        session.handler.endElement()
        session.stopIfFinished()
    }

    private static let characters: charactersSAXFunc = { userData, bytes, count in
        let session = Session.from(userData)
        session.handler.text(UnsafeBufferPointer(start: bytes, count: Int(count)))
        session.stopIfFinished()
    }

    private static let entityDeclaration: entityDeclSAXFunc = { userData, name, _, _, _, _ in
        Session.from(userData).refuseEntityDeclaration(named: name)
    }

    /// An external entity with a notation (`<!ENTITY logo SYSTEM "logo.gif" NDATA gif>`).
    private static let unparsedEntityDeclaration: unparsedEntityDeclSAXFunc = { userData, name, _, _, _ in
        Session.from(userData).refuseEntityDeclaration(named: name)
    }

    private static let structuredError: xmlStructuredErrorFunc = { userData, error in
        let session = Session.from(userData)
        guard let error, let context = session.context else { return }
        session.reportUndecodableBytes()
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        // Where the parser is, as FoundationXML reported it: for an error inside an attribute or a
        // mismatched end tag, that is after the construct, where libxml2 noticed.
        let (line, column) = session.position(in: context)
        session.handler.error(code: Int(error.pointee.code), message: message, line: line, column: column)
        session.stopIfFinished()
    }

    /// An error libxml2 raises outside the parser: a conversion that failed (`XML_I18N_CONV_FAILED`,
    /// and the `XML_IO_ENCODER` error after it) is noted for ``Session/reportUndecodableBytes()``; the
    /// rest say nothing the parser does not.
    private static let outsideError: xmlStructuredErrorFunc = { userData, error in
        guard let userData, let error else { return }
        let session = Session.from(userData)
        guard let context = session.context, !session.isStopped else { return }
        let code = Int(error.pointee.code)
        guard code == Int(XML_I18N_CONV_FAILED.rawValue) || code == Int(XML_IO_ENCODER.rawValue) else { return }
        session.undecodableEncoding = session.undecodableEncoding ?? session.encodingName(of: context)
    }
}
