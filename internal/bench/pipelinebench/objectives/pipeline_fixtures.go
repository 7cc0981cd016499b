package objectives

// The fixture objectives of `hive bench pipeline`: ten small functions,
// each asked for in a Go, a Python and a JavaScript repository (thirty
// objectives), each in three variants an implementer may write: correct,
// subtly wrong (it passes the repository's own tests and fails an edge
// case), and a stub (left with a TODO, failing even the visible tests).
// The cases are plain data every language's harness reads: visible ones
// ship in the repository, the tester's are what a tester that catches the
// bug adds, and the hidden ones stay outside the repository, where no
// role looks; the bench runs them once the run has ended.

// Objective classes, from the smallest change to a feature; each has its
// own chance that an implementer gets it right first time.
const (
	ClassTypo    = "typo"
	ClassSmall   = "small"
	ClassBug     = "bug"
	ClassFeature = "feature"
)

// benchCase is one call and the answer it must give.
type benchCase struct {
	Fn   string `json:"fn"`
	Args []any  `json:"args"`
	Want any    `json:"want"`
}

// variantCode is one function in one language: its correct and its
// subtly wrong text (the stub is made from the correct one's first line).
type variantCode struct{ Correct, Subtle string }

// Objective is one function asked for, in all three languages.
type Objective struct {
	Fn    string // its snake_case name: the file and the cases say it
	Class string
	Text  string // the objective, as a user would type it
	Zero  string // its result kind: "string", "int" or "bool"
	// Visible cases ship with the repository; Tester are the cases a
	// tester that catches the bug adds; Hidden are the acceptance tests.
	Visible, Tester, Hidden [][2]any // {args, want}
	Code                    map[string]variantCode
}

func args(a ...any) []any { return a }

var All = []Objective{
	{Fn: "greet", Class: ClassTypo, Text: "fix the typo in the greeting", Zero: "string",
		Visible: [][2]any{{args("Ada"), "Hello, Ada!"}},
		Tester:  [][2]any{{args(""), "Hello, world!"}},
		Hidden:  [][2]any{{args("   "), "Hello, world!"}, {args("Bo"), "Hello, Bo!"}},
		Code: map[string]variantCode{
			"go": {`func Greet(name string) string {
	if strings.TrimSpace(name) == "" {
		return "Hello, world!"
	}
	return "Hello, " + name + "!"
}
`, `func Greet(name string) string {
	if name == "" {
		return "Helo, world!"
	}
	return "Hello, " + name + "!"
}
`},
			"python": {`def greet(name):
    if not name.strip():
        return "Hello, world!"
    return "Hello, " + name + "!"
`, `def greet(name):
    if name == "":
        return "Helo, world!"
    return "Hello, " + name + "!"
`},
			"js": {`export function greet(name) {
  if (name.trim() === "") return "Hello, world!";
  return "Hello, " + name + "!";
}
`, `export function greet(name) {
  if (name === "") return "Helo, world!";
  return "Hello, " + name + "!";
}
`},
		}},
	{Fn: "month_name", Class: ClassTypo, Text: "fix the spelling of the month names", Zero: "string",
		Visible: [][2]any{{args(1), "January"}, {args(12), "December"}},
		Tester:  [][2]any{{args(2), "February"}},
		Hidden:  [][2]any{{args(2), "February"}, {args(9), "September"}, {args(13), ""}},
		Code: map[string]variantCode{
			"go": {`func MonthName(m int) string {
	names := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	if m < 1 || m > 12 {
		return ""
	}
	return names[m-1]
}
`, `func MonthName(m int) string {
	names := []string{"January", "Febuary", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	if m < 1 || m > 12 {
		return ""
	}
	return names[m-1]
}
`},
			"python": {`def month_name(m):
    names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    if m < 1 or m > 12:
        return ""
    return names[m - 1]
`, `def month_name(m):
    names = ["January", "Febuary", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    if m < 1 or m > 12:
        return ""
    return names[m - 1]
`},
			"js": {`export function monthName(m) {
  const names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  if (m < 1 || m > 12) return "";
  return names[m - 1];
}
`, `export function monthName(m) {
  const names = ["January", "Febuary", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  if (m < 1 || m > 12) return "";
  return names[m - 1];
}
`},
		}},
	{Fn: "clamp", Class: ClassSmall, Text: "small change: clamp must swap lo and hi when they come reversed", Zero: "int",
		Visible: [][2]any{{args(5, 0, 10), 5}, {args(-3, 0, 10), 0}, {args(12, 0, 10), 10}, {args(-5, 10, 0), 0}},
		Tester:  [][2]any{{args(5, 10, 0), 5}},
		Hidden:  [][2]any{{args(7, 9, 1), 7}, {args(20, 9, 1), 9}},
		Code: map[string]variantCode{
			"go": {`func Clamp(x, lo, hi int) int {
	if lo > hi {
		lo, hi = hi, lo
	}
	return min(max(x, lo), hi)
}
`, `func Clamp(x, lo, hi int) int {
	if x < min(lo, hi) {
		return min(lo, hi)
	}
	if x > hi {
		return hi
	}
	return x
}
`},
			"python": {`def clamp(x, lo, hi):
    if lo > hi:
        lo, hi = hi, lo
    return min(max(x, lo), hi)
`, `def clamp(x, lo, hi):
    if x < min(lo, hi):
        return min(lo, hi)
    if x > hi:
        return hi
    return x
`},
			"js": {`export function clamp(x, lo, hi) {
  if (lo > hi) [lo, hi] = [hi, lo];
  return Math.min(Math.max(x, lo), hi);
}
`, `export function clamp(x, lo, hi) {
  if (x < Math.min(lo, hi)) return Math.min(lo, hi);
  if (x > hi) return hi;
  return x;
}
`},
		}},
	{Fn: "slugify", Class: ClassSmall, Text: "tweak slugify to collapse repeated dashes and trim them from both ends", Zero: "string",
		Visible: [][2]any{{args("Hello World"), "hello-world"}, {args("a  b"), "a-b"}, {args("Go!"), "go"}},
		Tester:  [][2]any{{args("  lead"), "lead"}},
		Hidden:  [][2]any{{args("--x--"), "x"}, {args(" A b "), "a-b"}},
		Code: map[string]variantCode{
			"go": {`func Slugify(s string) string {
	var b []rune
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			dash = false
			b = append(b, r)
		} else {
			dash = true
		}
	}
	return string(b)
}
`, `func Slugify(s string) string {
	var b []rune
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash {
				b = append(b, '-')
			}
			dash = false
			b = append(b, r)
		} else {
			dash = true
		}
	}
	return string(b)
}
`},
			"python": {`def slugify(s):
    out, dash = [], False
    for c in s.lower():
        if ("a" <= c <= "z") or ("0" <= c <= "9"):
            if dash and out:
                out.append("-")
            dash = False
            out.append(c)
        else:
            dash = True
    return "".join(out)
`, `def slugify(s):
    out, dash = [], False
    for c in s.lower():
        if ("a" <= c <= "z") or ("0" <= c <= "9"):
            if dash:
                out.append("-")
            dash = False
            out.append(c)
        else:
            dash = True
    return "".join(out)
`},
			"js": {`export function slugify(s) {
  let out = "", dash = false;
  for (const c of s.toLowerCase()) {
    if ((c >= "a" && c <= "z") || (c >= "0" && c <= "9")) {
      if (dash && out.length > 0) out += "-";
      dash = false;
      out += c;
    } else dash = true;
  }
  return out;
}
`, `export function slugify(s) {
  let out = "", dash = false;
  for (const c of s.toLowerCase()) {
    if ((c >= "a" && c <= "z") || (c >= "0" && c <= "9")) {
      if (dash) out += "-";
      dash = false;
      out += c;
    } else dash = true;
  }
  return out;
}
`},
		}},
	{Fn: "is_leap", Class: ClassBug, Text: "fix the bug: is_leap says 1900 is a leap year", Zero: "bool",
		Visible: [][2]any{{args(2024), true}, {args(2023), false}, {args(1900), false}},
		Tester:  [][2]any{{args(2000), true}},
		Hidden:  [][2]any{{args(2000), true}, {args(2400), true}, {args(2100), false}},
		Code: map[string]variantCode{
			"go": {`func IsLeap(y int) bool {
	return y%4 == 0 && (y%100 != 0 || y%400 == 0)
}
`, `func IsLeap(y int) bool {
	return y%4 == 0 && y%100 != 0
}
`},
			"python": {`def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
`, `def is_leap(y):
    return y % 4 == 0 and y % 100 != 0
`},
			"js": {`export function isLeap(y) {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}
`, `export function isLeap(y) {
  return y % 4 === 0 && y % 100 !== 0;
}
`},
		}},
	{Fn: "mean", Class: ClassBug, Text: "fix the crash when mean gets an empty list; it returns 0 then, and rounds halves up", Zero: "int",
		Visible: [][2]any{{args([]int{}), 0}, {args([]int{2, 4}), 3}, {args([]int{5}), 5}},
		Tester:  [][2]any{{args([]int{1, 2}), 2}},
		Hidden:  [][2]any{{args([]int{1, 2, 2}), 2}, {args([]int{0, 1}), 1}, {args([]int{10, 20, 25}), 18}},
		Code: map[string]variantCode{
			"go": {`func Mean(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return (2*sum + len(xs)) / (2 * len(xs))
}
`, `func Mean(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return sum / len(xs)
}
`},
			"python": {`def mean(xs):
    if not xs:
        return 0
    return (2 * sum(xs) + len(xs)) // (2 * len(xs))
`, `def mean(xs):
    if not xs:
        return 0
    return sum(xs) // len(xs)
`},
			"js": {`export function mean(xs) {
  if (xs.length === 0) return 0;
  const sum = xs.reduce((a, b) => a + b, 0);
  return Math.floor((2 * sum + xs.length) / (2 * xs.length));
}
`, `export function mean(xs) {
  if (xs.length === 0) return 0;
  const sum = xs.reduce((a, b) => a + b, 0);
  return Math.floor(sum / xs.length);
}
`},
		}},
	{Fn: "roman", Class: ClassFeature, Text: "add conversion of integers to roman numerals", Zero: "string",
		Visible: [][2]any{{args(1), "I"}, {args(4), "IV"}, {args(58), "LVIII"}, {args(2024), "MMXXIV"}},
		Tester:  [][2]any{{args(9), "IX"}},
		Hidden:  [][2]any{{args(1994), "MCMXCIV"}, {args(49), "XLIX"}, {args(3999), "MMMCMXCIX"}},
		Code: map[string]variantCode{
			"go": {`func Roman(n int) string {
	values := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	symbols := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	out := ""
	for i, v := range values {
		for n >= v {
			out += symbols[i]
			n -= v
		}
	}
	return out
}
`, `func Roman(n int) string {
	values := []int{1000, 500, 400, 100, 50, 40, 10, 5, 4, 1}
	symbols := []string{"M", "D", "CD", "C", "L", "XL", "X", "V", "IV", "I"}
	out := ""
	for i, v := range values {
		for n >= v {
			out += symbols[i]
			n -= v
		}
	}
	return out
}
`},
			"python": {`def roman(n):
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, symbol in table:
        while n >= value:
            out += symbol
            n -= value
    return out
`, `def roman(n):
    table = [(1000, "M"), (500, "D"), (400, "CD"), (100, "C"), (50, "L"), (40, "XL"), (10, "X"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, symbol in table:
        while n >= value:
            out += symbol
            n -= value
    return out
`},
			"js": {`export function roman(n) {
  const table = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];
  let out = "";
  for (const [value, symbol] of table) {
    while (n >= value) { out += symbol; n -= value; }
  }
  return out;
}
`, `export function roman(n) {
  const table = [[1000, "M"], [500, "D"], [400, "CD"], [100, "C"], [50, "L"], [40, "XL"], [10, "X"], [5, "V"], [4, "IV"], [1, "I"]];
  let out = "";
  for (const [value, symbol] of table) {
    while (n >= value) { out += symbol; n -= value; }
  }
  return out;
}
`},
		}},
	{Fn: "format_duration", Class: ClassFeature, Text: "add a function that formats a duration in seconds as 1h02m03s", Zero: "string",
		Visible: [][2]any{{args(0), "0s"}, {args(45), "45s"}, {args(125), "2m05s"}},
		Tester:  [][2]any{{args(3723), "1h02m03s"}},
		Hidden:  [][2]any{{args(3600), "1h00m00s"}, {args(7385), "2h03m05s"}, {args(600), "10m00s"}},
		Code: map[string]variantCode{
			"go": {`func FormatDuration(s int) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s%3600/60, s%60)
}
`, `func FormatDuration(s int) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%dm%02ds", s/3600, s%3600/60, s%60)
}
`},
			"python": {`def format_duration(s):
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%02dm%02ds" % (s // 3600, s % 3600 // 60, s % 60)
`, `def format_duration(s):
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%dm%02ds" % (s // 3600, s % 3600 // 60, s % 60)
`},
			"js": {`export function formatDuration(s) {
  const two = (n) => String(n).padStart(2, "0");
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + two(s % 60) + "s";
  return Math.floor(s / 3600) + "h" + two(Math.floor((s % 3600) / 60)) + "m" + two(s % 60) + "s";
}
`, `export function formatDuration(s) {
  const two = (n) => String(n).padStart(2, "0");
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + two(s % 60) + "s";
  return Math.floor(s / 3600) + "h" + Math.floor((s % 3600) / 60) + "m" + two(s % 60) + "s";
}
`},
		}},
	{Fn: "compare_versions", Class: ClassFeature, Text: "add semantic version comparison of two version strings", Zero: "int",
		Visible: [][2]any{{args("1.2.0", "1.3.0"), -1}, {args("2.0.0", "2.0.0"), 0}, {args("1.0.1", "1.0.0"), 1}},
		Tester:  [][2]any{{args("1.10.0", "1.9.0"), 1}},
		Hidden:  [][2]any{{args("0.0.2", "0.0.10"), -1}, {args("10.0.0", "9.9.9"), 1}, {args("3.1.4", "3.1.4"), 0}},
		Code: map[string]variantCode{
			"go": {`func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := 0, 0
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
`, `func CompareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < min(len(pa), len(pb)); i++ {
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return 0
}
`},
			"python": {`def compare_versions(a, b):
    pa, pb = [int(x) for x in a.split(".")], [int(x) for x in b.split(".")]
    n = max(len(pa), len(pb))
    pa, pb = pa + [0] * (n - len(pa)), pb + [0] * (n - len(pb))
    return (pa > pb) - (pa < pb)
`, `def compare_versions(a, b):
    pa, pb = a.split("."), b.split(".")
    return (pa > pb) - (pa < pb)
`},
			"js": {`export function compareVersions(a, b) {
  const pa = a.split(".").map(Number), pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] || 0, y = pb[i] || 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
`, `export function compareVersions(a, b) {
  const pa = a.split("."), pb = b.split(".");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return 0;
}
`},
		}},
	{Fn: "rle", Class: ClassFeature, Text: "add run-length encoding of strings, each run as its count then its character", Zero: "string",
		Visible: [][2]any{{args("aaabcc"), "3a1b2c"}, {args(""), ""}, {args("x"), "1x"}},
		Tester:  [][2]any{{args("aaaaaaaaaaaa"), "12a"}},
		Hidden:  [][2]any{{args("bbbbbbbbbbbbbbbc"), "15b1c"}, {args("abc"), "1a1b1c"}},
		Code: map[string]variantCode{
			"go": {`func Rle(s string) string {
	r := []rune(s)
	out := ""
	for i := 0; i < len(r); {
		j := i
		for j < len(r) && r[j] == r[i] {
			j++
		}
		out += strconv.Itoa(j-i) + string(r[i])
		i = j
	}
	return out
}
`, `func Rle(s string) string {
	r := []rune(s)
	out := ""
	for i := 0; i < len(r); {
		j := i
		for j < len(r) && r[j] == r[i] {
			j++
		}
		out += string(rune('0'+j-i)) + string(r[i])
		i = j
	}
	return out
}
`},
			"python": {`def rle(s):
    out, i = "", 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out += str(j - i) + s[i]
        i = j
    return out
`, `def rle(s):
    out, i = "", 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out += chr(48 + j - i) + s[i]
        i = j
    return out
`},
			"js": {`export function rle(s) {
  let out = "";
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j < s.length && s[j] === s[i]) j++;
    out += String(j - i) + s[i];
    i = j;
  }
  return out;
}
`, `export function rle(s) {
  let out = "";
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j < s.length && s[j] === s[i]) j++;
    out += String.fromCharCode(48 + j - i) + s[i];
    i = j;
  }
  return out;
}
`},
		}},
}
