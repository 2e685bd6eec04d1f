package connect

import "io"

var errEOF = io.EOF
