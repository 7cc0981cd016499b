package roleplay

// FailingTest is the test a failing sim tester adds, for the tests of
// package roleplay_test.
const FailingTest = failingTest
