package ledger

import (
	"path"
	"strings"
)

// An ignoreList is the patterns of one .gitignore file that the snapshot
// understands: names and globs ("*.o", "build/", "/dist", "docs/*.html").
// Negations ("!keep") and "**" are left out, so the snapshot sees more
// files than git would, never fewer of the ones git tracks.
type ignoreList struct {
	base     string // the directory of the .gitignore, relative to the root ("" for the root)
	patterns []ignorePattern
}

type ignorePattern struct {
	glob     string
	anchored bool // matched against the path from base, not the name
	dirOnly  bool
}

// parseIgnore reads the patterns of a .gitignore in directory base.
func parseIgnore(data, base string) ignoreList {
	l := ignoreList{base: base}
	for line := range strings.Lines(data) {
		line = strings.TrimRight(line, "\r\n")
		line = strings.TrimRight(line, " \t")
		if line == "" || line[0] == '#' || line[0] == '!' || strings.Contains(line, "**") || strings.Contains(line, "\\") {
			continue
		}
		p := ignorePattern{}
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			p.anchored = true
			line = strings.TrimLeft(line, "/")
		}
		if line == "" || line == "." || line == ".." {
			continue
		}
		if _, err := path.Match(line, ""); err != nil {
			continue
		}
		p.glob = line
		l.patterns = append(l.patterns, p)
	}
	return l
}

// match reports whether rel (relative to the snapshot's root, inside the
// list's base) is ignored.
func (l *ignoreList) match(rel, name string, isDir bool) bool {
	sub := rel
	if l.base != "" {
		var ok bool
		if sub, ok = strings.CutPrefix(rel, l.base+"/"); !ok {
			return false
		}
	}
	for _, p := range l.patterns {
		if p.dirOnly && !isDir {
			continue
		}
		target := name
		if p.anchored {
			target = sub
		}
		if ok, _ := path.Match(p.glob, target); ok {
			return true
		}
	}
	return false
}
