module together-rl-ports

go 1.19
