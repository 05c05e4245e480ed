package main

// #include <malloc.h>
import "C"

func mallocTrim() { C.malloc_trim(0) }
