module github.com/relock-go/relock/test/proof

go 1.24.0

replace github.com/relock-go/relock => ../..
