/// An error a test fetch throws, named so a state's summary says which one.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
