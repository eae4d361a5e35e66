// #wave.expr parse errors say what was expected where.
// RUN: wave-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected '(' at column 5 of "max M"}}
func.func private @min_max_call() attributes {x = #wave.expr<"max M">}

// -----

// expected-error @+1 {{expected at least two operands of min}}
func.func private @min_one_operand() attributes {x = #wave.expr<"min(M)">}

// -----

// expected-error @+1 {{min and max may appear only at the top of an expression}}
func.func private @nested_min() attributes {x = #wave.expr<"M + min(M, N)">}

// -----

// expected-error @+1 {{expected a constant or symbolic operand (no product or division of two bound variables)}}
func.func private @product_of_variables() attributes {x = #wave.expr<"$0 * $1">}

// -----

// expected-error @+1 {{expected a constant or symbolic operand}}
func.func private @divide_by_variable() attributes {x = #wave.expr<"M floordiv $0">}

// -----

// expected-error @+1 {{expected the end of the expression at column 3 of "M N"}}
func.func private @two_operands() attributes {x = #wave.expr<"M N">}

// -----

// expected-error @+1 {{expected the end of the expression at column 7 of "M < N < K"}}
func.func private @two_comparisons() attributes {x = #wave.expr<"M < N < K">}

// -----

// expected-error @+1 {{expected ')' at column 7 of "(M + 1"}}
func.func private @unbalanced() attributes {x = #wave.expr<"(M + 1">}

// -----

// expected-error @+1 {{expected a variable number after '$' at column 2 of "$x"}}
func.func private @variable_number() attributes {x = #wave.expr<"$x">}

// -----

// expected-error @+1 {{expected an integer, a symbol, '$k', '-' or '(' at column 11 of "M floordiv"}}
func.func private @missing_operand() attributes {x = #wave.expr<"M floordiv">}

// -----

// expected-error @+1 {{expected an operand before 'mod' at column 1 of "mod 4"}}
func.func private @leading_operator() attributes {x = #wave.expr<"mod 4">}

// -----

// expected-error @+1 {{integer too large}}
func.func private @large_integer() attributes {x = #wave.expr<"99999999999999999999">}

// -----

// expected-error @+1 {{expected an integer, a symbol, '$k', '-' or '(' at column 1 of ""}}
func.func private @empty() attributes {x = #wave.expr<"">}

// -----

// An expression is one value, a min or max, or one comparison: not a mix.
// expected-error @+1 {{expected the end of the expression at column 12 of "min(M, 16) < N"}}
func.func private @min_compared() attributes {x = #wave.expr<"min(M, 16) < N">}

// -----

// A variable number is bounded: a huge one would size every affine map built from the
// expression by it (it made the parser run for seconds and take a gigabyte).
// expected-error @+1 {{expected a variable number below 64, but found $2147483648}}
func.func private @huge_variable() attributes {x = #wave.expr<"$2147483648 < 2">}

// -----

// expected-error @+1 {{expected a variable number below 64, but found $64}}
func.func private @variable_past_bound() attributes {x = #wave.expr<"$64 + 1">}
