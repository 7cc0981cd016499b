// Package notify calls a human when a run needs one and when it ends: the
// terminal bell, a desktop notification (notify-send or osascript, when
// present) and a webhook that receives a JSON body. Every channel can be
// switched off, and none may stop a run: failures are reported to a log
// function and otherwise ignored. It knows nothing of the engine.
package notify
