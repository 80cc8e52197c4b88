import CommandLineSupport
import Testing

/// JSON string literals: printable ASCII as it is, everything JSON or a terminal would act on escaped.
@Suite struct JSONLineTests {
    @Test func quotesPrintableASCIIAsItIs() {
        #expect(JSONLine.quoted("/sig/256/fit/aHR0cDovL2E?x=1 ~") == "\"/sig/256/fit/aHR0cDovL2E?x=1 ~\"")
        #expect(JSONLine.quoted("") == "\"\"")
    }

    @Test func escapesQuotesBackslashesAndControls() {
        #expect(JSONLine.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(JSONLine.quoted("\n\r\t\u{1B}[2J\u{7F}") == "\"\\n\\r\\t\\u001b[2J\\u007f\"")
        #expect(JSONLine.quoted("é\u{202E}") == "\"é\\u202e\"")
    }
}
