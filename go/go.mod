module regula.example/regula

go 1.26
