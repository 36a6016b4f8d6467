// Package stylecheck holds the repository's style test: the mechanical
// rules of STYLE.md that a program can check. It has no code of its own.
package stylecheck
