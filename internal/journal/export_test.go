package journal

// The contracts every Journal keeps, for the external tests that hold the
// tests' in-memory journal (journaltest, which imports this package) to
// them.
var (
	Contract          = testContract
	AppendAllContract = testAppendAll
)
