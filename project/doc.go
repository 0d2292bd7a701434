// Package project reads what a project declares for stick in the file at
// its workspace's root (stick.ProjectFile, ".stick.json"): its channels,
// each with a description and an optional retention. The file is checked
// against the rules its JSON Schema publishes (docs/stick.schema.json):
// unknown fields, names not matching ^[a-z0-9-]+$, duplicate names and
// bad limits are refused with a message naming the file and the field.
// Frontends declare what it holds in a room when a member joins (see
// Declare), so every frontend reads it the same way.
package project
