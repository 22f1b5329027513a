package rlock
