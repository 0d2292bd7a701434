// Package storecodec holds the encodings both stores (package store and
// package postgres) give the fields of stick's records that are lists or
// structures kept in one column: a list of names as one space-separated
// text, and a room's channel declarations as JSON. The channel codec
// remembers the last declarations it encoded or decoded, since a room's
// row is read and written on every turn and its declarations seldom
// change.
package storecodec
