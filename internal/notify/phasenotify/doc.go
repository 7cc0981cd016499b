// Package phasenotify decides what a phase run tells a human who is away
// from its terminal (through notify: a bell, the desktop, a webhook): a
// checkpoint that waits for them, with signed links that open it or answer
// it on hive serve; a usage limit that holds the run for hours; the run's
// end. It watches the run as an observer and passes everything on to the
// observer that displays it.
package phasenotify
