/* Grammar symbol and field ids of tree-sitter-python, looked up once so that
 * the index compares integers rather than type names. */
#ifndef TL_SYMS_H
#define TL_SYMS_H

#include <stdbool.h>

#include <tree_sitter/api.h>

typedef struct TlSyms {
	/* Statement and scope shapes the speed and safety facts look at. */
	TSSymbol elif_clause, else_clause, for_in_clause, set_comprehension,
		dictionary_comprehension, interpolation, yield, float_,
		named_expression, delete_statement, except_clause;
	TSSymbol module, function_definition, decorated_definition, decorator,
		class_definition, lambda, for_statement, while_statement,
		with_statement, with_clause, with_item, as_pattern,
		as_pattern_target, call, attribute, identifier, assignment,
		augmented_assignment, expression_statement, return_statement,
		import_statement, import_from_statement, aliased_import,
		dotted_name, relative_import, wildcard_import, keyword_argument,
		argument_list, generator_expression, subscript, binary_operator,
		unary_operator, parenthesized_expression, comparison_operator,
		boolean_operator, not_operator, conditional_expression,
		pattern_list, tuple_pattern, list_pattern, tuple, list,
		expression_list, parameters, lambda_parameters, typed_parameter,
		default_parameter, typed_default_parameter,
		list_splat_pattern, dictionary_splat_pattern, block,
		if_statement, true_, false_, none, integer, string, comment,
		list_comprehension, dictionary, type_, set, list_splat,
		dictionary_splat, continue_statement, break_statement,
		raise_statement, pair, block_ERROR;
	/* The parts of a string literal (string_start, string_content,
	 * string_end, escape_sequence, escape_interpolation). */
	TSSymbol string_start, string_content, string_end, escape_sequence,
		escape_interpolation;
	TSFieldId f_body, f_name, f_parameters, f_left, f_right, f_function,
		f_arguments, f_object, f_attribute, f_value, f_alias,
		f_module_name, f_superclasses, f_definition, f_condition,
		f_operator, f_type, f_subscript, f_alternative,
		f_consequence, f_argument;
} TlSyms;

/* The Python grammar and its ids; initialised on first use (thread-safe). */
const TSLanguage *tl_python_language(void);
const TlSyms *tl_syms(void);

#endif
