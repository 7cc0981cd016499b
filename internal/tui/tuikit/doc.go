// Package tuikit is what hive's two terminal screens, execute-phase's
// dashboard (tui) and hive run's pipeline screen (pipelinescreen), share:
// the answer box in which both show a question and take its answer
// (options picked by number, ←/→ or tab, or an answer typed with
// completion; the key help), so that a question reads and answers the same
// on both; their keys; the styles (the 16 ANSI colours) and each plan
// state's look; text laid out for a width (wrapped at spaces, padded,
// markdown rendered for a terminal); and a spend styled against its
// ceiling. It knows neither screen, and keeps no state but the box's; the
// box's View is pure.
package tuikit
