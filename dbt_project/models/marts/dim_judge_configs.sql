-- Every judge configuration of every study, named, and which ones the headline tables read
-- (int_judge_configs says how).
select * from {{ ref('int_judge_configs') }}
