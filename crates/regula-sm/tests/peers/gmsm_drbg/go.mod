module regula.example/gmsm_drbg

go 1.22

require github.com/emmansun/gmsm v0.15.5

require golang.org/x/sys v0.3.0 // indirect
