#include "rules/qtext.h"

#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"

/* tree-sitter's identifier characters (bytes past ASCII count as letters,
 * as its iswalnum does for most of them). */
static bool tl_qtext__ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c >= 0x80;
}

static bool tl_qtext__ident(unsigned char c)
{
	return tl_qtext__ident_start(c) || c == '.' || c == '?' || c == '!';
}

typedef struct TlQScan {
	const char *text;
	size_t len, i;
	uint32_t error_offset;
	const char *what;
} TlQScan;

/* Skips white space and comments; true when any was skipped. */
static bool tl_qtext__space(TlQScan *s)
{
	size_t from = s->i;
	while (s->i < s->len) {
		char c = s->text[s->i];
		if (c == ';') {
			while (s->i < s->len && s->text[s->i] != '\n')
				s->i++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			s->i++;
		} else {
			break;
		}
	}
	return s->i > from;
}

static bool tl_qtext__fail(TlQScan *s, size_t at, const char *what)
{
	s->error_offset = (uint32_t)at;
	s->what = what;
	return false;
}

/* Reads the string literal at s->i (on its '"') into *out, unescaped as
 * tree-sitter does (\n \r \t \0, any other character stands for itself). */
static bool tl_qtext__string(TlQScan *s, TlBuf *out)
{
	size_t start = s->i++;
	while (s->i < s->len) {
		char c = s->text[s->i++];
		if (c == '"')
			return true;
		if (c == '\n')
			break;
		if (c != '\\') {
			tl_buf_addc(out, c);
			continue;
		}
		if (s->i >= s->len)
			break;
		char e = s->text[s->i++];
		tl_buf_addc(out, e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e == '0' ? '\0' : e);
	}
	return tl_qtext__fail(s, start, "invalid query syntax");
}

static size_t tl_qtext__ident_end(const TlQScan *s, size_t i)
{
	while (i < s->len && tl_qtext__ident((unsigned char)s->text[i]))
		i++;
	return i;
}

/* The position of `name` among the pattern's names, added if new. */
static uint32_t tl_qtext__name(TlStrArray *names, const char *name, size_t len)
{
	for (uint32_t k = 0; k < names->size; k++)
		if (strlen(names->items[k]) == len && memcmp(names->items[k], name, len) == 0)
			return k;
	tl_array_push(names, tl_strndup(name, len));
	return names->size - 1;
}

/* Reads the predicate whose '(' is at s->i into p's predicates; s->i ends
 * past its ')'. Capture arguments are resolved when the pattern ends. */
static bool tl_qtext__predicate(TlQScan *s, TlQPattern *p, TlStrArray *arg_captures)
{
	s->i++;
	tl_qtext__space(s);
	TlQPredicate pr;
	memset(&pr, 0, sizeof pr);
	tl_array_init(&pr.args);
	pr.offset = (uint32_t)s->i;
	s->i++; /* '#' */
	if (s->i >= s->len || !tl_qtext__ident_start((unsigned char)s->text[s->i]))
		return tl_qtext__fail(s, s->i, "invalid query syntax");
	size_t end = tl_qtext__ident_end(s, s->i);
	pr.name = tl_strndup(s->text + s->i, end - s->i);
	s->i = end;
	tl_array_push(&p->predicates, pr);
	TlQPredicate *at = tl_array_last(&p->predicates);
	for (;;) {
		tl_qtext__space(s);
		if (s->i >= s->len)
			return tl_qtext__fail(s, s->len, "invalid query syntax");
		unsigned char c = (unsigned char)s->text[s->i];
		TlQArg a;
		memset(&a, 0, sizeof a);
		if (c == ')') {
			s->i++;
			return true;
		} else if (c == '@') {
			size_t e = tl_qtext__ident_end(s, s->i + 1);
			if (e == s->i + 1)
				return tl_qtext__fail(s, s->i, "invalid query syntax");
			a.is_capture = true;
			/* The name for now; resolved when the pattern ends. */
			a.capture = arg_captures->size;
			tl_array_push(arg_captures, tl_strndup(s->text + s->i + 1, e - s->i - 1));
			s->i = e;
		} else if (c == '"') {
			TlBuf b;
			tl_buf_init(&b);
			if (!tl_qtext__string(s, &b)) {
				tl_buf_release(&b);
				return false;
			}
			a.length = (uint32_t)b.len;
			a.string = b.len ? tl_buf_detach(&b) : tl_strdup("");
			tl_buf_release(&b);
		} else if (tl_qtext__ident_start(c)) {
			size_t e = tl_qtext__ident_end(s, s->i);
			a.length = (uint32_t)(e - s->i);
			a.string = tl_strndup(s->text + s->i, e - s->i);
			s->i = e;
		} else {
			return tl_qtext__fail(s, s->i, "invalid query syntax");
		}
		tl_array_push(&at->args, a);
	}
}

static void tl_qtext__pattern_release(TlQPattern *p)
{
	tl_free(p->shape);
	tl_str_array_release(&p->captures);
	tl_array_release(&p->capture_index);
	for (uint32_t k = 0; k < p->predicates.size; k++) {
		TlQPredicate *pr = &p->predicates.items[k];
		for (uint32_t a = 0; a < pr->args.size; a++)
			tl_free(pr->args.items[a].string);
		tl_array_release(&pr->args);
		tl_free(pr->name);
	}
	tl_array_release(&p->predicates);
	for (uint32_t k = 0; k < p->needs.size; k++)
		tl_str_array_release(&p->needs.items[k].any);
	tl_array_release(&p->needs);
}

static void tl_qtext__need(TlQPattern *p, const char *const *strings, const uint32_t *lens,
			   uint32_t n)
{
	TlQNeed need;
	tl_array_init(&need.any);
	for (uint32_t k = 0; k < n; k++) {
		if (memchr(strings[k], '\0', lens[k]) || lens[k] == 0) {
			/* A string the text search cannot look for: no need. */
			tl_str_array_release(&need.any);
			return;
		}
		tl_array_push(&need.any, tl_strndup(strings[k], lens[k]));
	}
	tl_array_push(&p->needs, need);
}

/* The needs of a finished pattern: anonymous nodes outside alternations,
 * and string tests of single-node captures. */
static void tl_qtext__needs(TlQPattern *p, const TlStrArray *anonymous, const bool *in_alt)
{
	for (uint32_t k = 0; k < anonymous->size; k++) {
		const char *s = anonymous->items[k];
		uint32_t l = (uint32_t)strlen(s);
		tl_qtext__need(p, &s, &l, 1);
	}
	for (uint32_t k = 0; k < p->predicates.size; k++) {
		const TlQPredicate *pr = &p->predicates.items[k];
		bool eq = strcmp(pr->name, "eq?") == 0 || strcmp(pr->name, "any-eq?") == 0;
		bool any_of = strcmp(pr->name, "any-of?") == 0;
		if ((!eq && !any_of) || pr->args.size < 2 || !pr->args.items[0].is_capture ||
		    (eq && pr->args.size != 2))
			continue;
		uint32_t c = pr->args.items[0].capture;
		if (c >= p->capture_count || in_alt[c])
			continue;
		TlArray(const char *) strs;
		TlArray(uint32_t) lens;
		tl_array_init(&strs);
		tl_array_init(&lens);
		bool all_strings = true;
		for (uint32_t a = 1; a < pr->args.size; a++) {
			all_strings = all_strings && !pr->args.items[a].is_capture;
			tl_array_push(&strs, pr->args.items[a].string);
			tl_array_push(&lens, pr->args.items[a].length);
		}
		if (all_strings)
			tl_qtext__need(p, strs.items, lens.items, strs.size);
		tl_array_release(&strs);
		tl_array_release(&lens);
	}
}

/* Scans the pattern starting at s->i (after white space) into *p. */
static bool tl_qtext__pattern(TlQScan *s, TlQPattern *p)
{
	TlBuf shape;
	tl_buf_init(&shape);
	TlStrArray anonymous, arg_captures;
	tl_array_init(&anonymous);
	tl_array_init(&arg_captures);
	TlArray(char) stack; /* open brackets */
	tl_array_init(&stack);
	TlArray(bool) in_alt; /* per canonical capture: seen inside an alternation */
	tl_array_init(&in_alt);
	/* Capture occurrences in the structure: the name's position, inside an
	 * alternation or not, and whether it follows another capture directly.
	 * The shape marks each with \x01 until indices are assigned. */
	TlArray(uint32_t) occ;
	TlArray(bool) occ_alt, occ_run;
	tl_array_init(&occ);
	tl_array_init(&occ_alt);
	tl_array_init(&occ_run);
	bool after_capture = false;
	uint32_t alternations = 0;
	bool quantified = false, ok = true, spaced = false;
	p->start = (uint32_t)s->i;
	for (;;) {
		spaced = tl_qtext__space(s) || spaced;
		if (s->i >= s->len) {
			if (stack.size)
				ok = tl_qtext__fail(s, s->len, "invalid query syntax");
			break;
		}
		unsigned char c = (unsigned char)s->text[s->i];
		bool opens_pattern = c == '(' || c == '[' || c == '"' || tl_qtext__ident_start(c);
		/* At depth 0, after the first token, a new pattern starts. */
		if (!stack.size && shape.len && opens_pattern)
			break;
		if (c == '(') {
			size_t k = s->i + 1;
			while (k < s->len && (s->text[k] == ' ' || s->text[k] == '\t' || s->text[k] == '\n' ||
					      s->text[k] == '\r'))
				k++;
			if (k < s->len && s->text[k] == '#') {
				if (!stack.size) {
					ok = tl_qtext__fail(s, s->i, "invalid query syntax");
					break;
				}
				if (!(ok = tl_qtext__predicate(s, p, &arg_captures)))
					break;
				spaced = true;
				continue;
			}
		}
		char last = shape.len ? shape.data[shape.len - 1] : '(';
		if (spaced && last != '(' && last != '[' && c != ')' && c != ']')
			tl_buf_addc(&shape, ' ');
		spaced = false;
		bool was_after_capture = after_capture;
		after_capture = c == '@';
		if (c == '(' || c == '[') {
			tl_array_push(&stack, (char)c);
			alternations += c == '[';
			tl_buf_addc(&shape, (char)c);
			s->i++;
		} else if (c == ')' || c == ']') {
			if (!stack.size || stack.items[stack.size - 1] != (c == ')' ? '(' : '[')) {
				ok = tl_qtext__fail(s, s->i, "invalid query syntax");
				break;
			}
			alternations -= tl_array_pop(&stack) == '[';
			tl_buf_addc(&shape, (char)c);
			s->i++;
		} else if (c == '"') {
			size_t at = s->i;
			TlBuf b;
			tl_buf_init(&b);
			if (!(ok = tl_qtext__string(s, &b))) {
				tl_buf_release(&b);
				break;
			}
			tl_buf_addn(&shape, s->text + at, s->i - at);
			if (!alternations)
				tl_array_push(&anonymous, tl_strndup(b.data ? b.data : "", b.len));
			tl_buf_release(&b);
		} else if (c == '@') {
			size_t e = tl_qtext__ident_end(s, s->i + 1);
			if (e == s->i + 1) {
				ok = tl_qtext__fail(s, s->i, "invalid query syntax");
				break;
			}
			tl_array_push(&occ, tl_qtext__name(&p->captures, s->text + s->i + 1, e - s->i - 1));
			tl_array_push(&occ_alt, alternations > 0);
			tl_array_push(&occ_run, was_after_capture);
			tl_buf_addc(&shape, '\x01');
			s->i = e;
		} else if (tl_qtext__ident_start(c)) {
			size_t e = tl_qtext__ident_end(s, s->i);
			/* A MISSING node has no text to look for. */
			quantified = quantified || s->text[e - 1] == '?' ||
				     (e - s->i == 7 && memcmp(s->text + s->i, "MISSING", 7) == 0);
			tl_buf_addn(&shape, s->text + s->i, e - s->i);
			s->i = e;
		} else {
			/* '?' and '*' are quantifiers; ':', '.', '!', '/', '+' are
			 * structure the scanner keeps as they are. */
			quantified = quantified || c == '?' || c == '*';
			tl_buf_addc(&shape, (char)c);
			s->i++;
		}
	}
	p->end = (uint32_t)s->i;
	while (p->end > p->start && (s->text[p->end - 1] == ' ' || s->text[p->end - 1] == '\n' ||
				     s->text[p->end - 1] == '\t' || s->text[p->end - 1] == '\r'))
		p->end--;
	/* Canonical indices, in order of first appearance; a capture right after
	 * another on the same node is the same capture when both names occur
	 * once (they hold the same node in every match). */
	TlArray(uint32_t) count;
	tl_array_init(&count);
	while (count.size < p->captures.size)
		tl_array_push(&count, 0);
	for (uint32_t i = 0; i < occ.size; i++)
		count.items[occ.items[i]]++;
	while (p->capture_index.size < p->captures.size)
		tl_array_push(&p->capture_index, UINT32_MAX);
	TlArray(bool) shown; /* per occurrence: written in the shape */
	tl_array_init(&shown);
	for (uint32_t i = 0; i < occ.size; i++) {
		uint32_t n = occ.items[i];
		bool first = p->capture_index.items[n] == UINT32_MAX;
		if (first && occ_run.items[i] && count.items[n] == 1 && count.items[occ.items[i - 1]] == 1) {
			p->capture_index.items[n] = p->capture_index.items[occ.items[i - 1]];
			tl_array_push(&shown, false);
		} else {
			if (first)
				p->capture_index.items[n] = p->capture_count++;
			tl_array_push(&shown, true);
		}
		uint32_t k = p->capture_index.items[n];
		while (in_alt.size <= k)
			tl_array_push(&in_alt, false);
		in_alt.items[k] = in_alt.items[k] || occ_alt.items[i];
	}
	/* Predicate arguments name captures of this pattern (or, as tree-sitter
	 * allows, of none: those never hold a node). */
	for (uint32_t k = 0; ok && k < p->predicates.size; k++) {
		TlQPredicate *pr = &p->predicates.items[k];
		for (uint32_t a = 0; a < pr->args.size; a++) {
			TlQArg *arg = &pr->args.items[a];
			if (!arg->is_capture)
				continue;
			const char *name = arg_captures.items[arg->capture];
			uint32_t n = tl_qtext__name(&p->captures, name, strlen(name));
			if (n == p->capture_index.size)
				tl_array_push(&p->capture_index, p->capture_count++);
			arg->capture = p->capture_index.items[n];
			while (in_alt.size <= arg->capture)
				tl_array_push(&in_alt, true);
		}
	}
	if (ok) {
		TlBuf out;
		tl_buf_init(&out);
		uint32_t o = 0;
		for (size_t i = 0; i < shape.len; i++) {
			if (shape.data[i] != '\x01') {
				tl_buf_addc(&out, shape.data[i]);
				continue;
			}
			if (shown.items[o])
				tl_buf_addf(&out, "@c%u", p->capture_index.items[occ.items[o]]);
			else if (out.len && out.data[out.len - 1] == ' ')
				out.data[--out.len] = '\0';
			o++;
		}
		p->shape = tl_buf_detach(&out);
		tl_buf_release(&out);
		if (!quantified)
			tl_qtext__needs(p, &anonymous, in_alt.items);
	}
	tl_array_release(&count);
	tl_array_release(&shown);
	tl_array_release(&occ);
	tl_array_release(&occ_alt);
	tl_array_release(&occ_run);
	tl_buf_release(&shape);
	tl_str_array_release(&anonymous);
	tl_str_array_release(&arg_captures);
	tl_array_release(&stack);
	tl_array_release(&in_alt);
	return ok;
}

bool tl_qtext_scan(const char *text, size_t len, TlQPatterns *out, uint32_t *error_offset,
		   const char **what)
{
	tl_array_init(out);
	TlQScan s = { text, len, 0, 0, NULL };
	for (;;) {
		tl_qtext__space(&s);
		if (s.i >= s.len)
			return true;
		TlQPattern p;
		memset(&p, 0, sizeof p);
		tl_array_init(&p.captures);
		tl_array_init(&p.capture_index);
		tl_array_init(&p.predicates);
		tl_array_init(&p.needs);
		bool ok = tl_qtext__pattern(&s, &p);
		if (ok && !p.shape[0])
			ok = tl_qtext__fail(&s, s.i, "invalid query syntax");
		if (!ok) {
			tl_qtext__pattern_release(&p);
			tl_qtext_release(out);
			*error_offset = s.error_offset;
			*what = s.what;
			return false;
		}
		tl_array_push(out, p);
	}
}

void tl_qtext_release(TlQPatterns *patterns)
{
	for (uint32_t i = 0; i < patterns->size; i++)
		tl_qtext__pattern_release(&patterns->items[i]);
	tl_array_release(patterns);
}

int32_t tl_qtext_capture(const TlQPattern *p, const char *name, size_t len)
{
	for (uint32_t k = 0; k < p->captures.size && k < p->capture_index.size; k++)
		if (strlen(p->captures.items[k]) == len && memcmp(p->captures.items[k], name, len) == 0)
			return (int32_t)p->capture_index.items[k];
	return -1;
}
