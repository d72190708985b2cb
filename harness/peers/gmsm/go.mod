module kcrypt/harness/peers/gmsm

go 1.25.0

require github.com/emmansun/gmsm v0.44.0
