-- One row per (review, quality metric) a human labelled: the metric's value computed from the reference human
-- span labels (int_judge_card_human_spans, annotator null) as the judge's is computed from its units, so
-- quality_comparison can debias the judge's mean with prediction-powered inference. premise_ratio (depth):
-- premises / (claims + premises) among the review's role spans, as R = premises / units.
with

spans as (

    select * from {{ ref('int_judge_card_human_spans') }}
    where annotator is null and dimension = 'role' and label in ('claim', 'premise')

),

final as (

    select
        concat_ws('|', review_key, 'premise_ratio') as ppi_label_id,
        review_key,
        'premise_ratio' as metric,
        count(*) filter (where label = 'premise') / count(*) as human_value,
        count(*) as n_spans,
        string_agg(distinct dataset, ',' order by dataset) as datasets

    from spans
    group by review_key

)

select * from final
