// Package jsonfile handles the text of a JSON file that people edit by
// hand, beneath what its keys mean: KeyLines finds the line of every key
// path (Join names one), and a Report records at those lines the values
// that are not allowed, each an *Error naming the file, line and key with
// the value shown short (Show) and what is accepted instead, and the notes
// that are no error; SyntaxError puts json's own errors at their line, with
// a hint for comments and trailing commas. Values are read as people write
// them (WholeNumber: 3 or 3.0; Duration: "5m" or a number of seconds) and
// written as they would write them (ShortDuration: "5m", not "5m0s";
// Encode leaves <, > and & as they are). It knows no key: which keys a file
// holds and what each accepts are its reader's to say (config's field
// tables).
package jsonfile
