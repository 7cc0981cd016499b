// Package redact masks secrets in text that hive writes down: agent output
// logs and journal payloads. A Redactor knows the values of the environment
// variables the config names as secrets (secrets.env) and the shapes of
// common credentials (Anthropic, OpenAI, GitHub, AWS and Slack keys, bearer
// tokens in Authorization headers, NAME_KEY=/NAME_TOKEN=/NAME_SECRET=
// assignments), and replaces them with [REDACTED]. Writer applies it to a
// stream line by line, so a secret split across two writes is still caught.
// Redaction is for what is stored and shown, never for what hive parses or
// sends: callers keep the original text for that. The package reads no
// environment and no config by itself and imports no other hive package.
package redact
