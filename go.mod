module github.com/aguitest/aguitest

go 1.26
