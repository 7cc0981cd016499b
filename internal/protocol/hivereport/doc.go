// Package hivereport reads the HIVE_REPORT an agent ends its work with
// (seed 003's v4 JSON: status, summary, files, confidence, decisions,
// concerns, and the fields of a challenge or a question) into a Report
// that carries a work.Report. Parse reads the JSON of one block leniently
// (a lone string where a list belongs is a list of one, a trailing comma
// is forgiven, a ```json fence is dropped) and never fails: a block hive
// cannot read is still a Report, with Err saying why and Raw holding what
// was written, so that the caller can log it and ask again. Loose finds
// the report of a text that has no <!--HIVE_REPORT … HIVE_REPORT--> comment
// in the forms the shell Hive's agents write (a ```hive_report fence,
// HIVE_REPORT marker lines, a JSON object with a "status" on its own
// lines). Where a report stands among an agent's other messages, and the
// comment blocks themselves, are the protocol package's to read.
package hivereport
