#include "syntax/syms.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const TSLanguage *tree_sitter_python(void);

static TlSyms tl_syms__table;
static pthread_once_t tl_syms__once = PTHREAD_ONCE_INIT;
static atomic_bool tl_syms__ready;

static TSSymbol tl_syms__named(const TSLanguage *lang, const char *name)
{
	TSSymbol s = ts_language_symbol_for_name(lang, name, (uint32_t)strlen(name), true);
	if (!s) {
		/* The grammar is pinned; a missing name is a build defect. */
		fprintf(stderr, "torchlint: internal error: grammar lacks '%s'\n", name);
		abort();
	}
	return s;
}

static TSSymbol tl_syms__anon(const TSLanguage *lang, const char *name)
{
	return ts_language_symbol_for_name(lang, name, (uint32_t)strlen(name), false);
}

static TSFieldId tl_syms__field(const TSLanguage *lang, const char *name)
{
	TSFieldId f = ts_language_field_id_for_name(lang, name, (uint32_t)strlen(name));
	if (!f) {
		fprintf(stderr, "torchlint: internal error: grammar lacks field '%s'\n", name);
		abort();
	}
	return f;
}

static void tl_syms__init(void)
{
	const TSLanguage *l = tree_sitter_python();
	TlSyms *s = &tl_syms__table;
#define N(field, name) s->field = tl_syms__named(l, name)
	N(elif_clause, "elif_clause");
	N(else_clause, "else_clause");
	N(for_in_clause, "for_in_clause");
	N(set_comprehension, "set_comprehension");
	N(dictionary_comprehension, "dictionary_comprehension");
	N(interpolation, "interpolation");
	N(yield, "yield");
	N(float_, "float");
	N(named_expression, "named_expression");
	N(delete_statement, "delete_statement");
	N(except_clause, "except_clause");
	N(module, "module");
	N(function_definition, "function_definition");
	N(decorated_definition, "decorated_definition");
	N(decorator, "decorator");
	N(class_definition, "class_definition");
	N(lambda, "lambda");
	N(for_statement, "for_statement");
	N(while_statement, "while_statement");
	N(with_statement, "with_statement");
	N(with_clause, "with_clause");
	N(with_item, "with_item");
	N(as_pattern, "as_pattern");
	N(as_pattern_target, "as_pattern_target");
	N(call, "call");
	N(attribute, "attribute");
	N(identifier, "identifier");
	N(assignment, "assignment");
	N(augmented_assignment, "augmented_assignment");
	N(expression_statement, "expression_statement");
	N(return_statement, "return_statement");
	N(import_statement, "import_statement");
	N(import_from_statement, "import_from_statement");
	N(aliased_import, "aliased_import");
	N(dotted_name, "dotted_name");
	N(relative_import, "relative_import");
	N(wildcard_import, "wildcard_import");
	N(keyword_argument, "keyword_argument");
	N(argument_list, "argument_list");
	N(generator_expression, "generator_expression");
	N(subscript, "subscript");
	N(binary_operator, "binary_operator");
	N(unary_operator, "unary_operator");
	N(parenthesized_expression, "parenthesized_expression");
	N(comparison_operator, "comparison_operator");
	N(boolean_operator, "boolean_operator");
	N(not_operator, "not_operator");
	N(conditional_expression, "conditional_expression");
	N(pattern_list, "pattern_list");
	N(tuple_pattern, "tuple_pattern");
	N(list_pattern, "list_pattern");
	N(tuple, "tuple");
	N(list, "list");
	N(expression_list, "expression_list");
	N(parameters, "parameters");
	N(lambda_parameters, "lambda_parameters");
	N(typed_parameter, "typed_parameter");
	N(default_parameter, "default_parameter");
	N(typed_default_parameter, "typed_default_parameter");
	N(list_splat_pattern, "list_splat_pattern");
	N(dictionary_splat_pattern, "dictionary_splat_pattern");
	N(block, "block");
	N(if_statement, "if_statement");
	N(true_, "true");
	N(false_, "false");
	N(none, "none");
	N(integer, "integer");
	N(string, "string");
	N(string_start, "string_start");
	N(string_content, "string_content");
	N(string_end, "string_end");
	N(escape_sequence, "escape_sequence");
	N(escape_interpolation, "escape_interpolation");
	N(comment, "comment");
	N(list_comprehension, "list_comprehension");
	N(dictionary, "dictionary");
	N(type_, "type");
	N(set, "set");
	N(list_splat, "list_splat");
	N(dictionary_splat, "dictionary_splat");
	N(continue_statement, "continue_statement");
	N(break_statement, "break_statement");
	N(raise_statement, "raise_statement");
	N(pair, "pair");
#undef N
	s->block_ERROR = tl_syms__anon(l, "ERROR");
#define F(field, name) s->field = tl_syms__field(l, name)
	F(f_body, "body");
	F(f_name, "name");
	F(f_parameters, "parameters");
	F(f_left, "left");
	F(f_right, "right");
	F(f_function, "function");
	F(f_arguments, "arguments");
	F(f_object, "object");
	F(f_attribute, "attribute");
	F(f_value, "value");
	F(f_alias, "alias");
	F(f_module_name, "module_name");
	F(f_superclasses, "superclasses");
	F(f_definition, "definition");
	F(f_condition, "condition");
	F(f_operator, "operator");
	F(f_type, "type");
	F(f_subscript, "subscript");
	F(f_alternative, "alternative");
	F(f_consequence, "consequence");
	F(f_argument, "argument");
#undef F
}

const TSLanguage *tl_python_language(void)
{
	return tree_sitter_python();
}

const TlSyms *tl_syms(void)
{
	/* Asked at nearly every node: past the first call, one atomic load. */
	if (!atomic_load_explicit(&tl_syms__ready, memory_order_acquire)) {
		pthread_once(&tl_syms__once, tl_syms__init);
		atomic_store_explicit(&tl_syms__ready, true, memory_order_release);
	}
	return &tl_syms__table;
}
