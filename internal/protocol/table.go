package protocol

import (
	"regexp"
	"strings"
)

var separatorCellRe = regexp.MustCompile(`^:?-+:?$`)

// cells splits a markdown table row; "\|" inside a cell is a literal bar
// (the sim escapes bars in task names so).
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

func isSeparator(cs []string) bool {
	for _, c := range cs {
		if !separatorCellRe.MatchString(c) {
			return false
		}
	}
	return true
}

// cellText drops markdown emphasis and code marks around a cell.
func cellText(c string) string {
	return strings.TrimSpace(strings.Trim(c, "*`_ "))
}

// tableRows returns the header and data rows of the first table in lines.
func tableRows(lines []string) (head []string, rows [][]string) {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "|") {
			if head != nil {
				break
			}
			continue
		}
		cs := cells(t)
		switch {
		case head == nil:
			head = cs
		case isSeparator(cs):
		default:
			rows = append(rows, cs)
		}
	}
	return head, rows
}

// parseCompleted reads the Completed Tasks table. Executors label its
// columns "| # | Task | Commit | Files |" (seed 002, the sim) or
// "| Task | Name | Commit | Files |" (GSD executors); unknown labels fall
// back to that column order.
func parseCompleted(lines []string) []CompletedTask {
	head, rows := tableRows(lines)
	if head == nil {
		return nil
	}
	numCol, nameCol, commitCol, filesCol, taskCol := -1, -1, -1, -1, -1
	for i, h := range head {
		switch strings.ToLower(cellText(h)) {
		case "#", "no", "no.", "num", "number", "n":
			numCol = i
		case "name", "task name", "title", "description":
			nameCol = i
		case "task":
			taskCol = i
		case "commit", "hash", "sha", "commit hash":
			commitCol = i
		case "files", "key files", "artifacts", "files changed":
			filesCol = i
		}
	}
	if taskCol >= 0 {
		if numCol < 0 && nameCol >= 0 {
			numCol = taskCol
		} else if nameCol < 0 {
			nameCol = taskCol
		}
	}
	if numCol < 0 && nameCol < 0 && commitCol < 0 && filesCol < 0 {
		numCol, nameCol, commitCol, filesCol = 0, 1, 2, 3
	}
	cell := func(row []string, i int) string {
		if i < 0 || i >= len(row) {
			return ""
		}
		return cellText(row[i])
	}
	var out []CompletedTask
	for _, row := range rows {
		t := CompletedTask{Name: cell(row, nameCol)}
		if m := leadNumRe.FindStringSubmatch(cell(row, numCol)); m != nil {
			t.Number = num(m[1])
		}
		if f := strings.Fields(cell(row, commitCol)); len(f) > 0 {
			t.Commit = strings.Trim(f[0], "`")
		}
		for _, f := range strings.Split(cell(row, filesCol), ",") {
			if f = cellText(f); f != "" && f != "-" && f != "—" && !strings.EqualFold(f, "none") {
				t.Files = append(t.Files, f)
			}
		}
		if t.Number != 0 || t.Name != "" || t.Commit != "" || len(t.Files) > 0 {
			out = append(out, t)
		}
	}
	return out
}
