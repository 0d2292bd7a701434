// Package linediff writes the difference of two texts as a unified diff
// ("diff -u"), line by line: the CLI shows a person what changed in the
// room's document between the version their edit started from and the one
// someone else wrote meanwhile. It has no dependencies beyond the standard
// library.
package linediff
