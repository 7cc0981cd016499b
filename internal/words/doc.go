// Package words holds the two ways hive shortens what an agent, a tool or
// a human wrote before it shows it or decides on it: the first text that
// says something, and a text on one line. Pure, like the machines that
// use it.
package words
