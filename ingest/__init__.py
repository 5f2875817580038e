"""Getting papers and human reviews into the lake: PDF → manuscript package, OpenReview → reviews."""
