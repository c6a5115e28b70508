/* Jupyter notebooks: the code cells of an .ipynb file, in order, as one
 * program, with IPython syntax (`%magic`, `!shell`, `%%cell` magics,
 * `x = !cmd`, `obj?`) turned into comments of the same length, so that
 * every position in the program maps back to a cell, and to the exact
 * place inside the raw .ipynb text. */
#ifndef TL_NOTEBOOK_H
#define TL_NOTEBOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/array.h"
#include "base/source.h"
#include "engine/finding.h"

/* One piece of a cell's source: a JSON string in the raw file. */
typedef struct TlNbPiece {
	uint32_t raw_start;  /* byte offset of the opening quote in the raw file */
	uint32_t text_start; /* byte offset of its decoded text in the program */
	uint32_t text_len;
} TlNbPiece;

typedef struct TlNbCell {
	uint32_t number;     /* 1-based position among all cells */
	uint32_t first_line; /* program line where the cell starts */
	uint32_t text_start, text_end; /* its bytes in the program */
	TlArray(TlNbPiece) pieces;
} TlNbCell;

typedef struct TlNotebook {
	TlSource program;    /* the code cells joined; path is the notebook's */
	TlSource raw;        /* the .ipynb text itself */
	TlArray(TlNbCell) cells;
	/* After a failed load: true when the file was read but is no notebook
	 * (invalid JSON, no "cells" list, a cell without source), a finding
	 * about the file rather than a failure to read it; `error_byte` is
	 * where in the raw text the problem was found (0: the whole file). */
	bool malformed;
	uint32_t error_byte;
} TlNotebook;

/* True for a path ending in ".ipynb". */
bool tl_notebook_path(const char *path);
/* Loads the notebook at `path` (or `len` bytes of `text` when text is not
 * NULL). On failure returns false with the reason in `why`, and sets
 * nb->malformed when the text was read but is no valid notebook. */
bool tl_notebook_load(TlNotebook *nb, const char *path, const char *text, size_t len,
		      char *why, size_t why_size);
void tl_notebook_release(TlNotebook *nb);
/* Rewrites a finding made on nb->program: cell and cell_start/cell_end
 * get the position within the cell, start/end the position in the raw
 * file. */
void tl_notebook_map(const TlNotebook *nb, TlFinding *f);
/* The cell holding program line `line`, or NULL. */
const TlNbCell *tl_notebook_cell_of_line(const TlNotebook *nb, uint32_t line);

#endif
