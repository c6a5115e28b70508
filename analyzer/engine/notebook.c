#include "engine/notebook.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/buf.h"

bool tl_notebook_path(const char *path)
{
	size_t n = strlen(path);
	return n > 6 && strcmp(path + n - 6, ".ipynb") == 0;
}

/* ---- JSON strings in the raw text ------------------------------------------------- */

static int tl_nb__hex(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}


/* Decodes the JSON string whose opening quote is at raw[at]. Appends the
 * text to `out` (when not NULL). With stop_after != UINT32_MAX, stops once
 * that many decoded bytes are produced and returns the raw offset reached;
 * otherwise returns the offset just past the closing quote. */
static uint32_t tl_nb__string(const char *raw, uint32_t len, uint32_t at, TlBuf *out,
			      uint32_t stop_after)
{
	TlBuf scratch;
	tl_buf_init(&scratch);
	TlBuf *b = out ? out : &scratch;
	size_t base = b->len;
	uint32_t i = at + 1;
	while (i < len && raw[i] != '"') {
		if (stop_after != UINT32_MAX && b->len - base >= stop_after)
			break;
		if (raw[i] != '\\') {
			tl_buf_addc(b, raw[i++]);
			continue;
		}
		char e = i + 1 < len ? raw[i + 1] : '\0';
		i += 2;
		switch (e) {
		case 'n': tl_buf_addc(b, '\n'); break;
		case 't': tl_buf_addc(b, '\t'); break;
		case 'r': tl_buf_addc(b, '\r'); break;
		case 'b': tl_buf_addc(b, '\b'); break;
		case 'f': tl_buf_addc(b, '\f'); break;
		case 'u': {
			int cp = i + 4 <= len ? tl_nb__hex(raw + i) : -1;
			if (cp < 0)
				break;
			i += 4;
			unsigned long full = (unsigned long)cp;
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= len && raw[i] == '\\' &&
			    raw[i + 1] == 'u') {
				int lo = tl_nb__hex(raw + i + 2);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					full = 0x10000 + (((unsigned long)cp - 0xD800) << 10) +
					       ((unsigned long)lo - 0xDC00);
					i += 6;
				}
			}
			tl_buf_add_utf8(b, (uint32_t)full);
			break;
		}
		default: tl_buf_addc(b, e); break; /* \" \\ \/ */
		}
	}
	tl_buf_release(&scratch);
	if (stop_after != UINT32_MAX)
		return i;
	return i < len ? i + 1 : i;
}

/* Finds the raw offset of every string of cells[k].source, in order. A
 * single pass over the tokens with an explicit stack: no recursion. */
static void tl_nb__source_strings(const char *raw, uint32_t len, TlIntLists *per_cell)
{
	enum { KEY_OTHER, KEY_CELLS, KEY_SOURCE };
	typedef struct {
		char type;       /* '{' or '[' */
		bool expect_key;
		uint8_t key;     /* last key seen (objects), compared once decoded */
		uint32_t index;  /* element index (arrays) */
	} Frame;
	TlArray(Frame) st;
	tl_array_init(&st);
	TlBuf key;
	tl_buf_init(&key);
	uint32_t i = 0;
	while (i < len) {
		char c = raw[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':') {
			i++;
			continue;
		}
		Frame *top = st.size ? tl_array_last(&st) : NULL;
		if (c == ',') {
			if (top && top->type == '[')
				top->index++;
			else if (top)
				top->expect_key = true;
			i++;
			continue;
		}
		if (c == '}' || c == ']') {
			if (st.size)
				st.size--;
			i++;
			continue;
		}
		/* A value (or an object key). Where is it? */
		bool is_key = top && top->type == '{' && top->expect_key;
		bool cell_source = st.size == 3 && st.items[0].type == '{' &&
				   st.items[0].key == KEY_CELLS && st.items[1].type == '[' &&
				   st.items[2].type == '{' && st.items[2].key == KEY_SOURCE && !is_key;
		bool cell_source_item = st.size == 4 && st.items[0].type == '{' &&
					st.items[0].key == KEY_CELLS && st.items[1].type == '[' &&
					st.items[2].type == '{' && st.items[2].key == KEY_SOURCE &&
					st.items[3].type == '[';
		if (c == '"') {
			if (is_key) {
				/* Compared decoded, as jansson reads it: "sour\u0063e"
				 * is "source". */
				tl_buf_clear(&key);
				uint32_t end = tl_nb__string(raw, len, i, &key, UINT32_MAX);
				top->key = key.len == 5 && memcmp(key.data, "cells", 5) == 0    ? KEY_CELLS
					   : key.len == 6 && memcmp(key.data, "source", 6) == 0 ? KEY_SOURCE
												: KEY_OTHER;
				top->expect_key = false;
				i = end;
				continue;
			}
			if (cell_source || cell_source_item) {
				uint32_t cell = st.items[1].index;
				while (per_cell->size <= cell) {
					TlIntArray empty;
					tl_array_init(&empty);
					tl_array_push(per_cell, empty);
				}
				tl_array_push(&per_cell->items[cell], (int32_t)i);
			}
			i = tl_nb__string(raw, len, i, NULL, UINT32_MAX);
			continue;
		}
		if (c == '{' || c == '[') {
			Frame f;
			memset(&f, 0, sizeof f);
			f.type = c;
			f.expect_key = c == '{';
			tl_array_push(&st, f);
			i++;
			continue;
		}
		/* numbers, true, false, null */
		while (i < len && !strchr(",}] \t\r\n", raw[i]))
			i++;
	}
	tl_buf_release(&key);
	tl_array_release(&st);
}

/* ---- IPython syntax --------------------------------------------------------------- */

/* Comments out one line in place: its first non-blank character becomes '#'. */
static void tl_nb__comment_line(char *line, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (line[i] != ' ' && line[i] != '\t') {
			line[i] = '#';
			return;
		}
}

/* `x = !ls`, `out = %timeit f()`: an assignment from IPython syntax. */
static bool tl_nb__magic_assignment(const char *line, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (line[i] == '=' && (i == 0 || !strchr("=!<>+-*/%&|^", line[i - 1]))) {
			size_t k = i + 1;
			if (k < n && line[k] == '=')
				return false;
			while (k < n && line[k] == ' ')
				k++;
			return k < n && (line[k] == '!' || line[k] == '%');
		}
		if (!(isalnum((unsigned char)line[i]) || strchr("_ ,.\t[]()", line[i])))
			return false;
	}
	return false;
}

/* A name IPython's help takes, all of s[0, n): as its help syntax reads
 * it, `%`-prefixed magics, dotted names whose parts may hold `*` wildcards
 * (`torch.*Tensor`, `*int*`) and literal integer subscripts (`x[0]`). */
static bool tl_nb__help_name(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && i < 2 && s[i] == '%')
		i++;
	bool part = false; /* inside a name part */
	if (i == n)
		return false;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || c == '_' || c == '*' || c >= 0x80) {
			if (!part && isdigit(c))
				return false;
			part = true;
		} else if (c == '.' && part) {
			part = false;
		} else if (c == '[' && part) {
			size_t k = i + 1;
			if (k < n && s[k] == '-')
				k++;
			size_t digits = k;
			while (k < n && isdigit((unsigned char)s[k]))
				k++;
			if (k == digits || k >= n || s[k] != ']')
				return false;
			i = k;
		} else {
			return false;
		}
	}
	return part;
}

/* `obj?`, `torch.nn.Linear??`, `torch.*Tensor?`, `?obj`, `??obj`: IPython
 * help on a name, alone on the line. */
static bool tl_nb__help(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	size_t q = 0;
	while (q < n && q < 2 && s[n - 1 - q] == '?')
		q++;
	if (q)
		return q < n && tl_nb__help_name(s, n - q);
	size_t p = 0;
	while (p < n && p < 2 && s[p] == '?')
		p++;
	if (!p)
		return false;
	while (p < n && (s[p] == ' ' || s[p] == '\t'))
		p++;
	return p < n && tl_nb__help_name(s + p, n - p);
}

/* The Python state at the end of one line of code: the depth of the
 * brackets left open, an open triple-quoted string (its quote character,
 * or 0), and whether the line ends in a backslash that joins the next one.
 * IPython only reads its own syntax at the start of a logical line: a line
 * inside brackets (`"%d" \n % (x,)`) or a string is Python. */
typedef struct TlNbState {
	int depth;
	char triple;
	bool joined;
} TlNbState;

static void tl_nb__scan_python(const char *line, size_t n, TlNbState *st)
{
	char quote = 0; /* an open single-line string */
	st->joined = false;
	for (size_t k = 0; k < n; k++) {
		char c = line[k];
		if (st->triple) {
			if (c == '\\') {
				k++;
			} else if (c == st->triple && k + 2 < n && line[k + 1] == c && line[k + 2] == c) {
				st->triple = 0;
				k += 2;
			}
			continue;
		}
		if (quote) {
			if (c == '\\')
				k++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '#')
			break;
		if (c == '\'' || c == '"') {
			if (k + 2 < n && line[k + 1] == c && line[k + 2] == c) {
				st->triple = c;
				k += 2;
			} else {
				quote = c;
			}
		} else if (c == '(' || c == '[' || c == '{') {
			st->depth++;
		} else if ((c == ')' || c == ']' || c == '}') && st->depth > 0) {
			st->depth--;
		}
	}
	size_t t = n;
	while (t && (line[t - 1] == ' ' || line[t - 1] == '\t' || line[t - 1] == '\r'))
		t--;
	st->joined = !quote && !st->triple && t && line[t - 1] == '\\';
}

static void tl_nb__neutralise(char *text, size_t len)
{
	/* Cell magics whose body is still Python. */
	static const char *const python_body[] = {
		"%%time", "%%timeit", "%%capture", "%%prun", "%%debug", "%%python", "%%python3",
	};
	bool whole = false;
	if (len >= 2 && text[0] == '%' && text[1] == '%') {
		whole = true;
		for (size_t k = 0; k < sizeof python_body / sizeof *python_body; k++) {
			size_t l = strlen(python_body[k]);
			if (len >= l && strncmp(text, python_body[k], l) == 0 &&
			    (len == l || text[l] == ' ' || text[l] == '\n' || text[l] == '\r'))
				whole = false;
		}
	}
	/* A neutralised line that ends in a backslash continues on the next
	 * line, which IPython joins to it (`!pip install -q \` then one
	 * package per line): the continuation is IPython syntax too. */
	bool continued = false;
	TlNbState py = { 0, 0, false };
	size_t i = 0;
	while (i < len) {
		size_t end = i;
		while (end < len && text[end] != '\n')
			end++;
		char *line = text + i;
		size_t n = end - i;
		size_t k = 0;
		while (k < n && (line[k] == ' ' || line[k] == '\t'))
			k++;
		/* Only at the start of a logical line: not inside brackets or a
		 * string, not after a backslash that joins Python lines. */
		bool logical = !py.depth && !py.triple && !py.joined;
		/* `%magic`, `!cmd`, and the auto-quote escapes `,f a b` / `;f a b`
		 * (no Python statement starts with one of these). */
		bool magic = logical && k < n &&
			     (line[k] == '%' || line[k] == '!' || (k == 0 && (line[k] == ',' || line[k] == ';')));
		bool neutral = whole || continued || magic ||
			       (logical && (tl_nb__help(line + k, n - k) || tl_nb__magic_assignment(line, n)));
		if (neutral)
			tl_nb__comment_line(line, n);
		else
			tl_nb__scan_python(line, n, &py);
		size_t t = n;
		while (t && (line[t - 1] == ' ' || line[t - 1] == '\t' || line[t - 1] == '\r'))
			t--;
		continued = neutral && t && line[t - 1] == '\\';
		i = end + 1;
	}
}

/* ---- loading ------------------------------------------------------------------------- */

/* Whether `lang`, a language name a notebook's metadata gives, is Python
 * (`python`, `Python 3`, `ipython3`; case aside). */
static bool tl_nb__is_python_name(const char *lang)
{
	size_t k = 0;
	if (strncasecmp(lang, "ipython", 7) == 0)
		k = 1;
	if (strncasecmp(lang + k, "python", 6) != 0)
		return false;
	for (k += 6; lang[k]; k++)
		if (!isdigit((unsigned char)lang[k]) && lang[k] != ' ' && lang[k] != '.')
			return false;
	return true;
}

/* The language `meta` (a notebook's or a cell's metadata) names, or NULL:
 * the kernel's (`kernelspec.language`, then `language_info.name`), or, for
 * a cell, the one an editor chose for it (VS Code's `vscode.languageId`;
 * Polyglot Notebooks' `polyglot_notebook.kernelName` and
 * `dotnet_interactive.language`). */
static const char *tl_nb__language(json_t *meta)
{
	static const char *const paths[][2] = {
		{ "kernelspec", "language" },	     { "language_info", "name" },
		{ "vscode", "languageId" },	     { "polyglot_notebook", "kernelName" },
		{ "dotnet_interactive", "language" },
	};
	if (!json_is_object(meta))
		return NULL;
	for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
		const char *v = json_string_value(json_object_get(json_object_get(meta, paths[k][0]), paths[k][1]));
		if (v && *v)
			return v;
	}
	return NULL;
}

void tl_notebook_release(TlNotebook *nb)
{
	tl_source_release(&nb->program);
	tl_source_release(&nb->raw);
	for (uint32_t i = 0; i < nb->cells.size; i++)
		tl_array_release(&nb->cells.items[i].pieces);
	tl_array_release(&nb->cells);
}

bool tl_notebook_load(TlNotebook *nb, const char *path, const char *text, size_t len,
		      char *why, size_t why_size)
{
	memset(nb, 0, sizeof *nb);
	bool ok = text ? tl_source_init_text(&nb->raw, path, text, len, why, why_size)
		       : tl_source_load(&nb->raw, path, why, why_size);
	if (!ok)
		return false;
	bool shaped = true; /* no cell without a type or source */
	json_error_t jerr;
	/* Duplicate keys are refused: jansson would keep one "source" while
	 * the raw scan below would read both. */
	json_t *doc = json_loadb(nb->raw.text, nb->raw.length, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		snprintf(why, why_size, "invalid notebook JSON: %s", jerr.text);
		size_t at = nb->raw.length;
		tl_source_release(&nb->raw);
		nb->malformed = true;
		/* jansson's position is just past the character it stopped at. */
		nb->error_byte = jerr.position > 0 && at ? (uint32_t)((size_t)jerr.position - 1 < at - 1
									? (size_t)jerr.position - 1 : at - 1) : 0;
		return false;
	}
	json_t *cells = json_object_get(doc, "cells");
	if (!json_is_object(doc) || !json_is_array(cells)) {
		snprintf(why, why_size, "not a notebook: no \"cells\" list at the top level");
		json_decref(doc);
		tl_source_release(&nb->raw);
		nb->malformed = true;
		return false;
	}
	TlIntLists strings;
	tl_array_init(&strings);
	tl_nb__source_strings(nb->raw.text, nb->raw.length, &strings);
	TlBuf prog;
	tl_buf_init(&prog);
	ok = true;
	/* Lines of prog[0, counted): each cell counts only its own lines (a
	 * recount per cell made 100k cells quadratic: 77 s). */
	size_t counted = 0;
	uint32_t lines = 1;
	const char *nb_lang = tl_nb__language(json_object_get(doc, "metadata"));
	for (size_t i = 0; i < json_array_size(cells) && ok; i++) {
		json_t *cell = json_array_get(cells, i);
		const char *type = json_string_value(json_object_get(cell, "cell_type"));
		json_t *source = json_object_get(cell, "source");
		if (!json_is_object(cell) || !type || !(json_is_string(source) || json_is_array(source))) {
			snprintf(why, why_size, "not a notebook: cell %zu has no cell_type or source", i + 1);
			ok = shaped = false;
			break;
		}
		/* A code cell of another language (a cell an editor marks as a
		 * shell script or plain text, a notebook whose kernel is not
		 * Python's) is not part of the program; a cell's own language
		 * wins over the notebook's. */
		const char *lang = tl_nb__language(json_object_get(cell, "metadata"));
		if (!lang)
			lang = nb_lang;
		if (strcmp(type, "code") != 0 || (lang && !tl_nb__is_python_name(lang)))
			continue;
		TlNbCell c;
		memset(&c, 0, sizeof c);
		tl_array_init(&c.pieces);
		c.number = (uint32_t)i + 1;
		c.text_start = (uint32_t)prog.len;
		for (; counted < prog.len; counted++)
			if (prog.data[counted] == '\n')
				lines++;
		c.first_line = lines;
		const TlIntArray *raw = i < strings.size ? &strings.items[i] : NULL;
		for (uint32_t k = 0; raw && k < raw->size; k++) {
			TlNbPiece p;
			p.raw_start = (uint32_t)raw->items[k];
			p.text_start = (uint32_t)prog.len;
			tl_nb__string(nb->raw.text, nb->raw.length, p.raw_start, &prog, UINT32_MAX);
			p.text_len = (uint32_t)prog.len - p.text_start;
			tl_array_push(&c.pieces, p);
		}
		tl_nb__neutralise(prog.data + c.text_start, prog.len - c.text_start);
		c.text_end = (uint32_t)prog.len;
		if (prog.len > c.text_start && prog.data[prog.len - 1] != '\n')
			tl_buf_addc(&prog, '\n');
		tl_array_push(&nb->cells, c);
	}
	for (uint32_t i = 0; i < strings.size; i++)
		tl_array_release(&strings.items[i]);
	tl_array_release(&strings);
	json_decref(doc);
	if (ok)
		ok = tl_source_init_text(&nb->program, path, prog.data, prog.len, why, why_size);
	tl_buf_release(&prog);
	if (!ok) {
		tl_notebook_release(nb);
		memset(nb, 0, sizeof *nb);
		nb->malformed = !shaped;
	}
	return ok;
}

/* ---- mapping ------------------------------------------------------------------------- */

const TlNbCell *tl_notebook_cell_of_line(const TlNotebook *nb, uint32_t line)
{
	/* The last cell starting at or before `line` (cells are in program
	 * order, first_line ascending): a binary search, as a notebook may
	 * have 100k cells and as many findings. */
	uint32_t lo = 0, hi = nb->cells.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (nb->cells.items[mid].first_line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &nb->cells.items[lo - 1] : NULL;
}

/* The raw-file position of program byte `at` inside `cell`. */
static TlPosition tl_nb__raw_position(const TlNotebook *nb, const TlNbCell *cell, uint32_t at)
{
	const TlNbPiece *piece = NULL;
	for (uint32_t i = 0; i < cell->pieces.size; i++) {
		const TlNbPiece *p = &cell->pieces.items[i];
		if (p->text_start <= at)
			piece = p;
	}
	if (!piece)
		return tl_source_position(&nb->raw, 0);
	uint32_t within = at - piece->text_start;
	if (within > piece->text_len)
		within = piece->text_len;
	uint32_t raw = tl_nb__string(nb->raw.text, nb->raw.length, piece->raw_start, NULL, within);
	return tl_source_position(&nb->raw, raw);
}

void tl_notebook_map(const TlNotebook *nb, TlFinding *f)
{
	const TlNbCell *cell = tl_notebook_cell_of_line(nb, f->start.line);
	if (!cell)
		return;
	f->cell = cell->number;
	f->cell_start.line = f->start.line - cell->first_line + 1;
	f->cell_start.column = f->start.column;
	f->cell_end.line = f->end.line >= cell->first_line ? f->end.line - cell->first_line + 1 : 1;
	f->cell_end.column = f->end.column;
	uint32_t end = f->end_byte > cell->text_end ? cell->text_end : f->end_byte;
	f->start = tl_nb__raw_position(nb, cell, f->start_byte);
	f->end = tl_nb__raw_position(nb, cell, end);
}
