// Package demo runs 'stick demo': three agent processes take turns on a throwaway database, one is killed mid-turn, and the others detect it, take over and recover from the log.
// The agents are supervised by package internal/childproc.
package demo
