// Package fakegithub is a GitHub API of the project's own, for tests that
// run the real gh CLI: an HTTPS server on loopback (gh talks to it as a
// GitHub Enterprise host, trusting the server's test CA through
// SSL_CERT_FILE) that answers the subset of GraphQL and REST that hive's
// gh commands use, from a repository's state the test sets up (issues,
// their labels and comments) and reads back. It speaks GraphQL by
// operation name, not by parsing queries: an operation it does not know
// fails the test with its name, so a gh that asks for something new is
// found at once.
package fakegithub
