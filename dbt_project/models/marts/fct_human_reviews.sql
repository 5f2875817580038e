-- One row per human review with its scale check and whether its paper is known
-- (see int_human_reviews_checked).
select * from {{ ref('int_human_reviews_checked') }}
