// module example.com/decoy is only a comment
module example.com/shop

go 1.22

require github.com/google/uuid v1.6.0
