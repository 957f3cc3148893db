"""End-to-end tests: real server processes, real transports, clients that are not ours."""
