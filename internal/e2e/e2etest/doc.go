// Package e2etest holds helpers for hive's end-to-end tests with the real agent CLIs.
package e2etest
