// Package pages is hive serve's HTML: the templates of its pages (the
// dashboard, a run, a checkpoint and its form, logging in, a signed link,
// an outcome) rendered from the runs' views; the Markdown of checkpoint
// details rendered as HTML, everything escaped first, so that an agent's
// text cannot script the dashboard; and the style sheet and script the
// pages load, all embedded. It renders what it is given: it reads no
// journal and handles no request.
package pages
