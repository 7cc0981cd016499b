// Package markup finds the structure of a planning file's body, which is
// not XML: it mixes XML-like tags with markdown and with code (Map<string,
// X>, a && b, <!-- comments -->, JSX). Scanner pairs each "<name attrs>"
// open tag with the first closing tag after it, and a tag never closed is
// plain text, which makes generics, comparisons and stray tags harmless;
// comments and, when asked, fenced code blocks hide the examples they hold.
// The markdown side reads headings outside code fences, the sections under
// them, bold labels (**Files:**) and the file lists people annotate. It
// knows no plan: what an element or a section means is parse's. It imports
// only the standard library and does no I/O.
package markup
