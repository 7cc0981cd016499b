// Package serve is hive serve: a web dashboard and a JSON API for the
// repository's runs (phase runs from .hive/journal.db, hive run's from
// .hive/runs.db), read from the journals that other hive processes write
// (package views), live through server-sent events, where a human answers
// the open checkpoints from any browser, a phone's included. Answers go
// through package answer, the path of `hive answer`, so each is journaled
// exactly once and a running hive applies it at once. Every request is
// authenticated (a bearer token, or the HttpOnly session cookie a one-time
// login link sets); state changes need a CSRF token and the page's own
// origin; signed links (HMAC, single use, expiring) open or answer one
// checkpoint from a notification. It serves only its own embedded pages
// (package pages): no parameter ever names a file, and no secret reaches a
// page or a log. It never runs agents or writes anything but answers and
// its own key.
package serve
